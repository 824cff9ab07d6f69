import { Effect } from "effect"
import type { Caller } from "../../access/caller.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { t } from "../../shared/i18n.ts"
import type { Locale } from "../../shared/locale.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { InvoiceItemsRepo } from "./items-repo.ts"
import { ofInvoices } from "./payments-wire.ts"
import { type AdjustmentWire, EDITABLE, type InvoiceItemWire, type InvoiceWire, TRANSITIONS } from "./model.ts"
import { type AdjustmentRow, type CouponRow, type InvoiceRow, type ItemRow } from "./rows.ts"
import { InvoiceRefsRepo } from "./refs-repo.ts"
import { businessMoney } from "../../access/tenant.ts"

/**
 * Invoice records as each mode sees them (spec: Invoice): client mode the common fields plus
 * person and coupon; staff mode everything; the staff list only the fields the spec names.
 */

/**
 * The next states, the same in both modes (TRANSITIONS; closing needs a live item and nothing
 * outstanding: src/billing/invoices/payments-wire.ts).
 */
export const stateEvents = (row: InvoiceRow, liveItems: number, outstanding: number): ReadonlyArray<string> =>
  TRANSITIONS[row.state].filter((next) => {
    if (next === "closed") return liveItems > 0 && outstanding === 0
    return true
  })

export const isEditable = (row: InvoiceRow) => EDITABLE.includes(row.state)


export const adjustmentWire = (row: AdjustmentRow, price: (cents: number) => string): AdjustmentWire => ({
  id: row.id,
  type: row.type,
  name: row.name,
  created_at: formatTimestamp(row.created_at),
  amount_cents: row.amount_cents,
  amount: price(row.amount_cents),
  ...(row.percent === null ? {} : { percent: row.percent }),
  ...(row.source_type === null || row.source_id === null ? {} : { source: { id: row.source_id, type: row.source_type } }),
  ...(row.initial_punchcard_count === null ? {} : { initial_punchcard_count: row.initial_punchcard_count })
})

const DETAIL_TYPES: Record<ItemRow["product_kind"], string> = {
  membership: "Membership",
  prepaid: "Prepaid",
  pack: "Pack",
  single_visit_pass: "Pack"
}

const UNIT_KEYS = { day: "invoice_detail_unit_day", week: "invoice_detail_unit_week", month: "invoice_detail_unit_month", year: "invoice_detail_unit_year" } as const
const INTERVAL_UNITS = { weekly: "week", monthly: "month", yearly: "year" } as const
const PER_KEYS = { week: "invoice_detail_visits_per_week", month: "invoice_detail_visits_per_month", year: "invoice_detail_visits_per_year" } as const

/**
 * The plan item's descriptions (spec, invoice item detail: count_description,
 * extended_description, initial_punchcard_count_description), from its product's terms, in
 * the request's language: the visits, then how long it lasts (packs, prepaids) or its billing
 * and commitment (memberships). A signup fee has none.
 */
export const itemDescriptions = (item: ItemRow, initialCount: number | null, locale: Locale) => {
  if (item.kind !== "plan") return {}
  const unit = (u: keyof typeof UNIT_KEYS) => t(locale, UNIT_KEYS[u])
  const count = item.product_count === null
    ? t(locale, "invoice_detail_visits_unlimited")
    : item.limit_period === null
    ? t(locale, "invoice_detail_visits", { count: item.product_count })
    : t(locale, PER_KEYS[item.limit_period], { count: item.product_count })
  const lines = [count]
  if (item.product_kind === "membership") {
    if (item.invoice_interval_unit !== null) {
      lines.push(t(locale, "invoice_detail_billed", { unit: unit(INTERVAL_UNITS[item.invoice_interval_unit]), count: item.invoice_interval_count ?? 1 }))
    }
    if (item.commitment_length !== null && item.commitment_unit !== null) {
      lines.push(t(locale, "invoice_detail_commitment", { unit: unit(item.commitment_unit), count: item.commitment_length }))
    }
  } else if (item.commitment_length !== null && item.commitment_unit !== null) {
    lines.push(t(locale, "invoice_detail_valid", { unit: unit(item.commitment_unit), count: item.commitment_length }))
  }
  return {
    count_description: count,
    extended_description: lines,
    ...(initialCount === null ? {} : { initial_punchcard_count_description: t(locale, "invoice_detail_first_period", { count: initialCount }) })
  }
}

type Price = (cents: number) => string
type Ref = { readonly id: number; readonly name: string; readonly email: string | null }

/** What the items of a page of invoices share: their recipients and adjustments, the money format, the locale and whether staff mode's fields show. */
interface ItemsContext {
  readonly recipients: ReadonlyArray<Ref & { readonly invoice_item_id: number }>
  readonly adjustments: ReadonlyArray<AdjustmentRow>
  readonly price: Price
  readonly locale: Locale
  readonly staffMode: boolean
}

const itemWire = (item: ItemRow, { recipients, adjustments, price, locale, staffMode }: ItemsContext): InvoiceItemWire => ({
  id: item.id,
  name: item.name,
  description: item.description,
  recipients: recipients.filter((r) => r.invoice_item_id === item.id).map((r) => ({ id: r.id, name: r.name, email: r.email })),
  adjustments: adjustments.filter((a) => a.invoice_item_id === item.id).map((a) => adjustmentWire(a, price)),
  detail: {
    id: item.id,
    type: item.kind === "signup_fee" ? "SignupFee" : DETAIL_TYPES[item.product_kind],
    start_date: item.start_date,
    ...itemDescriptions(
      item,
      adjustments.find((a) => a.invoice_item_id === item.id && a.type === "ProrateAdjustment" && a.initial_punchcard_count !== null)
        ?.initial_punchcard_count ?? null,
      locale
    ),
    has_terms: item.kind === "plan" && item.has_terms,
    plan_product_id: item.plan_product_id,
    // The plan product is the product sold; there are no retail products, so no retail_product_id.
    product_id: item.plan_product_id
  },
  service: null,
  price_cents: item.price_cents,
  price: price(item.price_cents),
  total_cents: item.total_cents,
  total: price(item.total_cents),
  ...(staffMode ? { commissionable: item.commissionable, compable: item.compable } : {})
})

/** The coupon as each mode sees it: staff mode adds the formatted amount. */
const couponWire = (coupon: CouponRow | null, staffMode: boolean, price: Price): InvoiceWire["coupon"] =>
  coupon === null
    ? null
    : {
      id: coupon.id,
      code: coupon.code,
      name: coupon.name,
      description: coupon.description,
      ...(coupon.discount_percent === null ? {} : { discount_percent: coupon.discount_percent }),
      ...(coupon.discount_amount_cents === null
        ? {}
        : {
          discount_amount_cents: coupon.discount_amount_cents,
          ...(staffMode ? { discount_amount: price(coupon.discount_amount_cents) } : {})
        })
    }

/** Staff mode's fields beyond the common ones. */
const staffFields = (
  row: InvoiceRow,
  payments: NonNullable<InvoiceWire["payments"]>,
  location: Exclude<InvoiceWire["location"], undefined>,
  refs: { readonly staff: (id: number | null) => Ref | null; readonly person: (id: number | null) => Ref | null },
  price: Price
) => ({
  person_id: row.person_id,
  subtotal_cents: row.subtotal_cents,
  subtotal: price(row.subtotal_cents),
  discount_total_cents: row.discount_total_cents,
  discount_total: price(row.discount_total_cents),
  adjustment_total_cents: row.adjustment_total_cents,
  adjustment_total: price(row.adjustment_total_cents),
  included_tax_total_cents: row.included_tax_total_cents,
  included_tax_total: price(row.included_tax_total_cents),
  additional_tax_total_cents: row.additional_tax_total_cents,
  additional_tax_total: price(row.additional_tax_total_cents),
  send_receipt: row.send_receipt,
  receipt_email: row.receipt_email,
  has_tip: false,
  has_commission_pay: row.commission_recipient_id !== null,
  // The tip recipient is a setting: it changes while the invoice is editable.
  can_adjust_tip: isEditable(row),
  // A settled payment without a settled refund can be voided (POST /payments/:id/voids).
  is_voidable: payments.some((p) => p.state === "settled" && !p.refunds.some((r) => r.state === "settled")),
  location,
  created_by: refs.staff(row.created_by_staff_member_id) ?? refs.person(row.created_by_person_id),
  commission_recipient: refs.staff(row.commission_recipient_id),
  tip_recipient: refs.staff(row.tip_recipient_id),
  booking_id: row.booking_id,
  closed_at: row.closed_at === null ? null : formatTimestamp(row.closed_at),
  canceled_at: row.canceled_at === null ? null : formatTimestamp(row.canceled_at),
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at)
})

/**
 * What the answer shows beside the rows: their live items with recipients and adjustments, their
 * payments (outstanding and records), the people and staff they name, coupons and locations. A
 * write that has just written all of it passes it in (`wireOf`); the reads load it (`invoicesWire`).
 */
export interface InvoicesShown {
  readonly items: ReadonlyArray<ItemRow>
  readonly recipients: ReadonlyArray<Ref & { readonly invoice_item_id: number }>
  readonly adjustments: ReadonlyArray<AdjustmentRow>
  readonly paid: ReadonlyMap<number, { readonly outstanding: number; readonly payments: NonNullable<InvoiceWire["payments"]> }>
  readonly people: ReadonlyArray<Ref>
  readonly staff: ReadonlyArray<Ref>
  readonly coupons: ReadonlyMap<number, CouponRow>
  readonly locations: ReadonlyMap<number, Exclude<InvoiceWire["location"], undefined | null>>
}

/** Answers `{invoices: [...]}` for the given rows in the caller's mode, reading what they show. */
export const invoicesWire = Effect.fn("Invoices.wire")(function* (rows: ReadonlyArray<InvoiceRow>, view: Caller | "staff_list") {
  const business = yield* CurrentBusiness
  const lookups = yield* InvoiceRefsRepo
  const itemsRepo = yield* InvoiceItemsRepo
  const price = yield* businessMoney
  const items = yield* itemsRepo.items({ businessId: business.id, invoiceIds: rows.map((row) => row.id) })
  const paid = yield* ofInvoices(business.id, rows, price)
  if (view === "staff_list") {
    return rows.map((row): InvoiceWire => ({
      id: row.id,
      total_cents: row.total_cents,
      total: price(row.total_cents),
      state_events: stateEvents(row, items.filter((item) => item.invoice_id === row.id).length, paid.get(row.id)!.outstanding),
      send_receipt: row.send_receipt,
      receipt_email: row.receipt_email,
      currency: row.currency,
      person_id: row.person_id,
      state: row.state
    }))
  }
  const itemIds = items.map((item) => item.id)
  const staffIds = rows.flatMap((row) =>
    [row.commission_recipient_id, row.tip_recipient_id, row.created_by_staff_member_id].filter((id): id is number => id !== null))
  const coupons = new Map<number, CouponRow>()
  const locations = new Map<number, { readonly id: number; readonly name: string; readonly slug: string }>()
  for (const row of rows) {
    const coupon = row.coupon_id === null ? undefined : yield* lookups.couponById({ businessId: business.id, id: row.coupon_id })
    if (coupon !== undefined) coupons.set(coupon.id, coupon)
    const location = view._tag === "Staff" && row.location_id !== null ? yield* lookups.location({ businessId: business.id, id: row.location_id }) : undefined
    if (location !== undefined) locations.set(location.id, location)
  }
  return yield* wireOf(rows, view, {
    items,
    paid,
    recipients: yield* itemsRepo.recipients({ businessId: business.id, ids: itemIds }),
    adjustments: yield* itemsRepo.adjustments({ businessId: business.id, ids: itemIds }),
    people: yield* lookups.people({
      businessId: business.id,
      ids: [...new Set(rows.flatMap((row) => [row.person_id, ...(row.created_by_person_id === null ? [] : [row.created_by_person_id])]))]
    }),
    staff: yield* lookups.staff({ businessId: business.id, ids: [...new Set(staffIds)] }),
    coupons,
    locations
  })
})

/** The invoices in the caller's mode from what they show, without a read. */
export const wireOf = Effect.fn("Invoices.wireOf")(function* (rows: ReadonlyArray<InvoiceRow>, view: Caller, shown: InvoicesShown) {
  const staffMode = view._tag === "Staff"
  const price = yield* businessMoney
  const { locale } = yield* RequestContext
  const context: ItemsContext = { recipients: shown.recipients, adjustments: shown.adjustments, price, locale, staffMode }
  const refs = {
    person: (id: number | null) => (id === null ? null : (shown.people.find((p) => p.id === id) ?? null)),
    staff: (id: number | null) => (id === null ? null : (shown.staff.find((s) => s.id === id) ?? null))
  }
  return rows.map((row): InvoiceWire => {
    const coupon = row.coupon_id === null ? null : (shown.coupons.get(row.coupon_id) ?? null)
    const location = staffMode && row.location_id !== null ? (shown.locations.get(row.location_id) ?? null) : null
    const own = shown.items.filter((item) => item.invoice_id === row.id)
    const { outstanding, payments } = shown.paid.get(row.id)!
    const common: InvoiceWire = {
      id: row.id,
      invoice_number: row.invoice_number,
      invoice_date: row.invoice_date,
      total_cents: row.total_cents,
      total: price(row.total_cents),
      outstanding_amount_cents: outstanding,
      outstanding_amount: price(outstanding),
      currency: row.currency,
      state: row.state,
      state_events: stateEvents(row, own.length, outstanding),
      invoice_items: own.map((item) => itemWire(item, context)),
      payments,
      person: refs.person(row.person_id) ?? { id: row.person_id, name: "", email: null },
      coupon: couponWire(coupon, staffMode, price)
    }
    return staffMode ? { ...common, ...staffFields(row, payments, location, refs, price) } : common
  })
})
