/**
 * The money rule of invoices: the one place amounts are computed. Pure; the repo stores what it
 * returns in the transaction of the write that changed an invoice.
 *
 * Per live (not canceled) item, in this order:
 *   1. price           the item's list price (the staff member's price with staff-specific pricing);
 *   2. price override  a PriceOverride replaces the price (adjustment = override − price);
 *   3. prorate         a ProrateAdjustment deducts its amount, never below 0;
 *   4. discount        the item's own Discount (percent of, or a fixed amount up to, what is left),
 *                      then the invoice's coupon: a percent coupon takes its percent of each item;
 *                      a fixed coupon is spread over the items in proportion to what is left on
 *                      each (largest remainder, ties to the earlier item), never more than is left;
 *   5. tax             one line per sales tax of the item's product, at the invoice location's
 *                      rate for that tax, else the tax's own rate, on what is left (the base):
 *                      exclusive: round(base × rate / 100), added;
 *                      inclusive: base − round(base / (1 + rate / 100)), already in the base.
 * Rounding: half away from zero, at each percent discount and each tax line (never on sums).
 * Adjustments are signed: override ±, prorate and discounts ≤ 0, exclusive taxes ≥ 0.
 * Item total = price + adjustments + discounts + exclusive taxes; every invoice total is the sum
 * of its items' parts, so total = subtotal + adjustment_total + discount_total + additional_tax_total.
 */

/** round(amount × percent / 100), with percent up to four decimals, computed on integers. */
export const percentOf = (amount: number, percent: number): number => {
  const scaled = Math.round(percent * 10000) // percent × 10^4, exact for numeric(7,4)
  const numerator = amount * scaled // ≤ 2^31 × 10^6: exact in a double
  const denominator = 100 * 10000
  const sign = numerator < 0 ? -1 : 1
  const abs = Math.abs(numerator)
  const q = Math.floor(abs / denominator)
  const r = abs - q * denominator
  return sign * (2 * r >= denominator ? q + 1 : q)
}

/** The inclusive tax inside `base`: base − round(base / (1 + rate / 100)) = base − round(base × 10^6 / (10^6 + rate × 10^4)). */
export const inclusiveTaxOf = (base: number, rate: number): number => {
  const scaled = Math.round(rate * 10000)
  const numerator = base * 1_000_000
  const denominator = 1_000_000 + scaled
  const q = Math.floor(numerator / denominator)
  const r = numerator - q * denominator
  const net = 2 * r >= denominator ? q + 1 : q
  return base - net
}

export interface TaxInput {
  readonly salesTaxId: number
  readonly name: string
  readonly rate: number
  readonly inclusive: boolean
}

export interface ItemInput {
  readonly id: number
  readonly priceCents: number
  readonly override: number | null
  readonly prorateCents: number | null
  readonly discount: { readonly percent: number | null; readonly amountCents: number | null } | null
  readonly taxes: ReadonlyArray<TaxInput>
}

export interface CouponInput {
  readonly id: number
  readonly name: string
  readonly percent: number | null
  readonly amountCents: number | null
}

export interface TaxLine {
  readonly salesTaxId: number
  readonly name: string
  readonly rate: number
  readonly inclusive: boolean
  readonly amountCents: number
}

export interface ItemAmounts {
  readonly id: number
  readonly priceCents: number
  readonly overrideCents: number
  readonly prorateCents: number
  readonly discountCents: number
  readonly couponCents: number
  readonly taxes: ReadonlyArray<TaxLine>
  readonly adjustmentTotalCents: number
  readonly discountTotalCents: number
  readonly includedTaxTotalCents: number
  readonly additionalTaxTotalCents: number
  readonly totalCents: number
}

export interface InvoiceAmounts {
  readonly items: ReadonlyArray<ItemAmounts>
  readonly subtotalCents: number
  readonly adjustmentTotalCents: number
  readonly discountTotalCents: number
  readonly includedTaxTotalCents: number
  readonly additionalTaxTotalCents: number
  readonly totalCents: number
}

const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)

/** Spreads `amount` over `weights` in proportion (largest remainder); never more than each weight. */
export const spread = (amount: number, weights: ReadonlyArray<number>): ReadonlyArray<number> => {
  const whole = sum(weights)
  if (whole <= 0 || amount <= 0) return weights.map(() => 0)
  const capped = Math.min(amount, whole)
  const shares = weights.map((weight) => Math.floor((capped * weight) / whole))
  let left = capped - sum(shares)
  const order = weights
    .map((weight, i) => ({ i, remainder: (capped * weight) % whole }))
    .sort((a, b) => b.remainder - a.remainder || a.i - b.i)
  for (const { i } of order) {
    if (left === 0) break
    if (shares[i]! < weights[i]!) {
      shares[i]! += 1
      left -= 1
    }
  }
  return shares
}

export const computeInvoice = (items: ReadonlyArray<ItemInput>, coupon: CouponInput | null): InvoiceAmounts => {
  const stage = items.map((item) => {
    const afterOverride = item.override ?? item.priceCents
    const prorate = Math.min(item.prorateCents ?? 0, afterOverride)
    const afterProrate = afterOverride - prorate
    const discount =
      item.discount === null
        ? 0
        : item.discount.percent !== null
          ? Math.min(percentOf(afterProrate, item.discount.percent), afterProrate)
          : Math.min(item.discount.amountCents ?? 0, afterProrate)
    return { item, overrideCents: afterOverride - item.priceCents, prorate, discount, left: afterProrate - discount }
  })
  const couponShares =
    coupon === null
      ? stage.map(() => 0)
      : coupon.percent !== null
        ? stage.map((s) => Math.min(percentOf(s.left, coupon.percent!), s.left))
        : spread(coupon.amountCents ?? 0, stage.map((s) => s.left))
  const amounts = stage.map((s, i): ItemAmounts => {
    const base = s.left - couponShares[i]!
    const taxes = s.item.taxes.map((tax): TaxLine => ({
      ...tax,
      amountCents: tax.inclusive ? inclusiveTaxOf(base, tax.rate) : percentOf(base, tax.rate)
    }))
    const adjustmentTotalCents = s.overrideCents - s.prorate
    const discountTotalCents = -(s.discount + couponShares[i]!)
    const includedTaxTotalCents = sum(taxes.filter((t) => t.inclusive).map((t) => t.amountCents))
    const additionalTaxTotalCents = sum(taxes.filter((t) => !t.inclusive).map((t) => t.amountCents))
    return {
      id: s.item.id,
      priceCents: s.item.priceCents,
      overrideCents: s.overrideCents,
      prorateCents: -s.prorate,
      discountCents: -s.discount,
      couponCents: -couponShares[i]!,
      taxes,
      adjustmentTotalCents,
      discountTotalCents,
      includedTaxTotalCents,
      additionalTaxTotalCents,
      totalCents: s.item.priceCents + adjustmentTotalCents + discountTotalCents + additionalTaxTotalCents
    }
  })
  return {
    items: amounts,
    subtotalCents: sum(amounts.map((a) => a.priceCents)),
    adjustmentTotalCents: sum(amounts.map((a) => a.adjustmentTotalCents)),
    discountTotalCents: sum(amounts.map((a) => a.discountTotalCents)),
    includedTaxTotalCents: sum(amounts.map((a) => a.includedTaxTotalCents)),
    additionalTaxTotalCents: sum(amounts.map((a) => a.additionalTaxTotalCents)),
    totalCents: sum(amounts.map((a) => a.totalCents))
  }
}
