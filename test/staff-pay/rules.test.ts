import { describe, expect, it } from "vitest"
import { commission, DEFAULT_PAY_PERIOD_RULE, payPeriod, servicePay } from "../../src/billing/staff-pay/rules.ts"

const rate = {
  base_cents: 3000,
  per_head_cents: 200,
  per_head_minimum: 5,
  hourly_cents: 4500,
  tiers: [
    { attendance_threshold: 10, bonus_cents: 1000 },
    { attendance_threshold: 15, bonus_cents: 2500 }
  ]
}

describe("servicePay", () => {
  it("pays the base alone below the per-head minimum and the first tier", () => {
    expect(servicePay(rate, { appointment: false, completedVisits: 4, durationMinutes: 60 })).toEqual({
      base_cents: 3000, per_head_cents: 0, tiered_cents: 0, final_cents: 3000, service_hours: 1
    })
  })
  it("adds per head beyond the minimum and only the highest tier reached", () => {
    expect(servicePay(rate, { appointment: false, completedVisits: 12, durationMinutes: 45 })).toEqual({
      base_cents: 3000, per_head_cents: 1400, tiered_cents: 1000, final_cents: 5400, service_hours: 0.75
    })
    expect(servicePay(rate, { appointment: false, completedVisits: 15, durationMinutes: 90 }).tiered_cents).toBe(2500)
    expect(servicePay(rate, { appointment: false, completedVisits: 15, durationMinutes: 90 }).final_cents).toBe(3000 + 2000 + 2500)
  })
  it("pays appointments by the hour, rounded half up to the cent", () => {
    // 4500 × 50 / 60 = 3750
    expect(servicePay(rate, { appointment: true, completedVisits: 1, durationMinutes: 50 })).toEqual({
      base_cents: 3750, per_head_cents: 0, tiered_cents: 0, final_cents: 3750, service_hours: 0.83
    })
    // 1001 × 30 / 60 = 500.5 → 501
    expect(servicePay({ ...rate, hourly_cents: 1001 }, { appointment: true, completedVisits: 0, durationMinutes: 30 }).final_cents).toBe(501)
  })
})

describe("commission", () => {
  it("rounds basis points of the revenue half away from zero, once", () => {
    expect(commission(1000, 10000)).toBe(1000)
    expect(commission(1250, 999)).toBe(125) // 124.875
    expect(commission(500, 10)).toBe(1) // 0.5
    expect(commission(500, -10)).toBe(-1)
    expect(commission(0, 5000)).toBe(0)
  })
})

describe("payPeriod", () => {
  it("is semimonthly by default: the 1st to the 15th, the 16th to the month's end", () => {
    expect(payPeriod(DEFAULT_PAY_PERIOD_RULE, "2024-02-15")).toEqual({ start: "2024-02-01", end: "2024-02-15" })
    expect(payPeriod(DEFAULT_PAY_PERIOD_RULE, "2024-02-16")).toEqual({ start: "2024-02-16", end: "2024-02-29" })
    expect(payPeriod(DEFAULT_PAY_PERIOD_RULE, "2023-12-31")).toEqual({ start: "2023-12-16", end: "2023-12-31" })
  })
  it("follows a business's own rule", () => {
    expect(payPeriod({ kind: "monthly", anchor_date: null }, "2024-04-30")).toEqual({ start: "2024-04-01", end: "2024-04-30" })
    // Weeks from a Monday anchor, before and after it.
    expect(payPeriod({ kind: "weekly", anchor_date: "2024-01-01" }, "2024-01-10")).toEqual({ start: "2024-01-08", end: "2024-01-14" })
    expect(payPeriod({ kind: "weekly", anchor_date: "2024-01-01" }, "2023-12-31")).toEqual({ start: "2023-12-25", end: "2023-12-31" })
    expect(payPeriod({ kind: "biweekly", anchor_date: "2024-01-01" }, "2024-01-20")).toEqual({ start: "2024-01-15", end: "2024-01-28" })
  })
})
