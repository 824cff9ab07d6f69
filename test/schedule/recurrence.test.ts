import { describe, expect, it } from "vitest"
import { firstSessionDate, lastSessionDate, type RecurrenceRule, sessionDates, sessionInstants } from "../../src/schedule/events/recurrence.ts"
import { evaluate } from "../../src/enrollment/eligibility/rules.ts"
import { addDays, endOfDay, endOfMonth, instantOf, localAt, startOfDay, weekdayOf } from "../../src/shared/zoned-time.ts"

const LA = "America/Los_Angeles"
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z")

describe("wall-clock time in a zone", () => {
  it("maps local times to instants across both DST changes", () => {
    expect(iso(instantOf("2026-11-01", 90, LA))).toBe("2026-11-01T08:30:00Z") // 01:30 happens twice: the first (PDT)
    expect(iso(instantOf("2026-11-01", 150, LA))).toBe("2026-11-01T10:30:00Z") // 02:30 PST
    expect(iso(instantOf("2027-03-14", 150, LA))).toBe("2027-03-14T10:30:00Z") // 02:30 does not exist: 03:30 PDT
    expect(iso(instantOf("2027-03-14", 180, LA))).toBe("2027-03-14T10:00:00Z")
    expect(iso(instantOf("2026-03-29", 150, "Europe/Berlin"))).toBe("2026-03-29T01:30:00Z")
  })

  it("gives days as half-open intervals of local midnights (23 and 25 hour days included)", () => {
    expect(iso(startOfDay("2026-11-21", LA))).toBe("2026-11-21T08:00:00Z")
    expect(endOfDay("2026-11-01", LA) - startOfDay("2026-11-01", LA)).toBe(25 * 3_600_000)
    expect(endOfDay("2027-03-14", LA) - startOfDay("2027-03-14", LA)).toBe(23 * 3_600_000)
    expect(iso(startOfDay("2026-09-06", "America/Santiago"))).toBe("2026-09-06T04:00:00Z") // midnight skipped: 01:00
    expect(localAt(Date.parse("2026-11-22T07:59:59Z"), LA)).toEqual({ date: "2026-11-21", minutes: 23 * 60 + 59 })
  })

  it("does calendar arithmetic", () => {
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01")
    expect(endOfMonth("2028-02-10")).toBe("2028-02-29")
    expect(weekdayOf("2026-11-21")).toBe(6)
  })
})

const weekly = (fields: Partial<RecurrenceRule>): RecurrenceRule => ({
  frequency: "weekly",
  weekdays: [1, 3],
  interval_weeks: 1,
  start_date: "2026-11-02",
  end_date: null,
  session_count: null,
  ...fields
})

describe("recurrence", () => {
  it("lists weekly sessions in a window, bounded by end_date", () => {
    expect(sessionDates(weekly({}), "2026-11-09", "2026-11-18")).toEqual(["2026-11-09", "2026-11-11", "2026-11-16", "2026-11-18"])
    expect(sessionDates(weekly({ end_date: "2026-11-11" }), "2026-11-01", "2026-12-31")).toEqual([
      "2026-11-02",
      "2026-11-04",
      "2026-11-09",
      "2026-11-11"
    ])
  })

  it("keeps a course's fixed run whatever the window", () => {
    const course = weekly({ weekdays: [0], start_date: "2027-01-10", session_count: 3 })
    expect(sessionDates(course, "2027-01-15", "2027-12-31")).toEqual(["2027-01-17", "2027-01-24"])
    expect(firstSessionDate(course)).toBe("2027-01-10")
    expect(lastSessionDate(course)).toBe("2027-01-24")
    expect(lastSessionDate(weekly({}))).toBeNull()
  })

  it("skips weeks with interval_weeks and handles one-off events", () => {
    expect(sessionDates(weekly({ weekdays: [5], interval_weeks: 2 }), "2026-11-01", "2026-12-01")).toEqual([
      "2026-11-06",
      "2026-11-20"
    ])
    const once = weekly({ frequency: "once", weekdays: [], start_date: "2026-12-24" })
    expect(sessionDates(once, "2026-12-01", "2026-12-31")).toEqual(["2026-12-24"])
    expect(lastSessionDate(once)).toBe("2026-12-24")
  })

  it("keeps wall-clock times across DST and ends late classes the next day", () => {
    const before = sessionInstants("2026-10-26", "09:00", "10:00", LA)
    const after = sessionInstants("2026-11-02", "09:00", "10:00", LA)
    expect(iso(before.startAt)).toBe("2026-10-26T16:00:00Z")
    expect(iso(after.startAt)).toBe("2026-11-02T17:00:00Z")
    const late = sessionInstants("2026-11-20", "23:30", "00:30", LA)
    expect(iso(late.endAt)).toBe("2026-11-21T08:30:00Z")
  })
})

describe("eligibility rules", () => {
  const service = {
    online_booking: true,
    clients_can_book: true,
    members_can_book: true,
    client_purchase_disabled: false,
    require_cc: false,
    require_plan: false,
    enrollment_window_blackout_minutes: 0,
    booking_window_days: null
  }
  const base = { service, isMember: false, now: 0, full: false, alreadyEnrolled: false, hasPlan: false, hasCard: false } as const

  it("puts client_purchase_disabled in the list the spec gives for each mode and endpoint", () => {
    const disabled = { ...service, client_purchase_disabled: true }
    expect(evaluate({ ...base, service: disabled, mode: "front", list: "service" })).toEqual({
      warnings: ["client_purchase_disabled"],
      restrictions: ["client_purchase_disabled"]
    })
    expect(evaluate({ ...base, service: disabled, mode: "front", list: "occurrence" })).toEqual({
      warnings: [],
      restrictions: ["client_purchase_disabled"]
    })
    expect(evaluate({ ...base, service: disabled, mode: "desk", list: "occurrence" })).toEqual({
      warnings: ["client_purchase_disabled"],
      restrictions: []
    })
    // A plan that covers the service lifts it (the enrollment work provides plans).
    expect(evaluate({ ...base, service: disabled, hasPlan: true, mode: "front", list: "service" })).toEqual({ warnings: [], restrictions: [] })
  })

  it("never gives cancelled or deleted in service lists", () => {
    expect(evaluate({ ...base, mode: "desk", list: "service", state: "canceled" }).restrictions).toEqual([])
    expect(evaluate({ ...base, mode: "desk", list: "occurrence", state: "deleted" }).restrictions).toEqual(["deleted"])
  })
})
