import { describe, expect, it } from "vitest"
import { computeInvoice, inclusiveTaxOf, type ItemInput, percentOf, spread } from "../../src/billing/invoices/totals.ts"

/**
 * The money rule of invoices (src/billing/invoices/totals.ts) on its own: the rounding of each line, and
 * property checks over random prices, rates, discounts and coupons that every total is the sum
 * of its parts and nothing goes negative.
 */
const seeded = (seed: number) => () => {
  seed = (seed * 1664525 + 1013904223) % 4294967296
  return seed / 4294967296
}

describe("rounding", () => {
  it("rounds percent lines half away from zero", () => {
    expect(percentOf(250, 1)).toBe(3) // 2.5 → 3
    expect(percentOf(249, 1)).toBe(2) // 2.49 → 2
    expect(percentOf(-250, 1)).toBe(-3)
    expect(percentOf(1000, 8.875)).toBe(89) // 88.75 → 89
    expect(percentOf(999, 8.875)).toBe(89) // 88.66 → 89
    expect(percentOf(12345, 0)).toBe(0)
  })

  it("takes inclusive tax out of the price", () => {
    expect(inclusiveTaxOf(11000, 10)).toBe(1000)
    expect(inclusiveTaxOf(1000, 20)).toBe(167) // 1000 − round(833.33)
    expect(inclusiveTaxOf(0, 20)).toBe(0)
  })

  it("spreads a fixed coupon in proportion, never more than each share", () => {
    expect(spread(100, [100, 100, 100])).toEqual([34, 33, 33])
    expect(spread(500, [100, 50])).toEqual([100, 50])
    expect(spread(10, [0, 0])).toEqual([0, 0])
  })
})

describe("an invoice", () => {
  it("applies override, prorate, discount, coupon, then each tax", () => {
    const amounts = computeInvoice(
      [
        {
          id: 1,
          priceCents: 10000,
          override: 9000,
          prorateCents: 1000,
          discount: { percent: 10, amountCents: null },
          taxes: [
            { salesTaxId: 1, name: "State", rate: 8.875, inclusive: false },
            { salesTaxId: 2, name: "VAT", rate: 20, inclusive: true }
          ]
        }
      ],
      { id: 1, name: "Ten off", percent: null, amountCents: 1000 }
    )
    const item = amounts.items[0]!
    expect(item).toMatchObject({ overrideCents: -1000, prorateCents: -1000, discountCents: -800, couponCents: -1000 })
    // base 6200: 6200 × 8.875 % = 550.25 → 550; inclusive 6200 − round(6200 / 1.2) = 6200 − 5167 = 1033
    expect(item.taxes.map((t) => t.amountCents)).toEqual([550, 1033])
    expect(item.totalCents).toBe(6750)
    expect(amounts).toMatchObject({
      subtotalCents: 10000,
      adjustmentTotalCents: -2000,
      discountTotalCents: -1800,
      includedTaxTotalCents: 1033,
      additionalTaxTotalCents: 550,
      totalCents: 6750
    })
  })

  it("totals always equal the sum of their parts (random invoices)", () => {
    const random = seeded(42)
    const int = (max: number) => Math.floor(random() * (max + 1))
    for (let run = 0; run < 2000; run++) {
      const items: Array<ItemInput> = Array.from({ length: 1 + int(5) }, (_, i) => ({
        id: i + 1,
        priceCents: int(200000),
        override: random() < 0.2 ? int(200000) : null,
        prorateCents: random() < 0.2 ? int(50000) : null,
        discount: random() < 0.3 ? (random() < 0.5 ? { percent: int(100), amountCents: null } : { percent: null, amountCents: int(30000) }) : null,
        taxes: Array.from({ length: int(3) }, (_, t) => ({
          salesTaxId: t + 1,
          name: `Tax ${t}`,
          rate: int(250000) / 10000,
          inclusive: random() < 0.4
        }))
      }))
      const coupon = random() < 0.5 ? (random() < 0.5 ? { id: 1, name: "C", percent: int(100), amountCents: null } : { id: 1, name: "C", percent: null, amountCents: int(100000) }) : null
      const amounts = computeInvoice(items, coupon)
      const sum = (f: (item: (typeof amounts.items)[number]) => number) => amounts.items.reduce((a, item) => a + f(item), 0)
      for (const item of amounts.items) {
        const taxes = item.taxes.filter((t) => !t.inclusive).reduce((a, t) => a + t.amountCents, 0)
        expect(item.totalCents).toBe(item.priceCents + item.overrideCents + item.prorateCents + item.discountCents + item.couponCents + taxes)
        const base = item.priceCents + item.overrideCents + item.prorateCents + item.discountCents + item.couponCents
        expect(base).toBeGreaterThanOrEqual(0)
        expect(item.includedTaxTotalCents).toBeLessThanOrEqual(base)
        for (const tax of item.taxes) expect(Number.isInteger(tax.amountCents) && tax.amountCents >= 0).toBe(true)
      }
      expect(amounts.totalCents).toBe(sum((item) => item.totalCents))
      expect(amounts.totalCents).toBe(amounts.subtotalCents + amounts.adjustmentTotalCents + amounts.discountTotalCents + amounts.additionalTaxTotalCents)
      expect(amounts.includedTaxTotalCents).toBe(sum((item) => item.includedTaxTotalCents))
      if (coupon?.amountCents != null) expect(-sum((item) => item.couponCents)).toBeLessThanOrEqual(coupon.amountCents)
    }
  })
})
