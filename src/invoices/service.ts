import { Clock, Effect } from "effect"
import { CurrentStaff } from "../auth/access.ts"
import { CurrentBusiness } from "../auth/tenant.ts"
import { completeInvoicedBooking } from "../bookings/service.ts"
import { clientReach } from "../people/client-reach.ts"
import { PeopleRepo } from "../people/repo.ts"
import { commitmentEnd } from "../plans/model.ts"
import { requireUnpaid } from "./paid-guard.ts"
import { InvoicePayments } from "./payments.ts"
import { createPersonPlan } from "../plans/packs.ts"
import { inTransaction } from "../platform/transactions.ts"
import { privateResponse } from "../services/service.ts"
import { type Message, NotFound, Unprocessable, fail } from "../shared/errors.ts"
import { idempotent } from "../shared/idempotency.ts"
import { pageLinks, pageOf } from "../shared/pagination.ts"
import { isCalendarDate, localDateAt } from "../shared/zoned-time.ts"
import { InvoiceItemsRepo, type ItemInsert } from "./items-repo.ts"
import {
  type DeskInvoiceUpdateInput,
  type FrontInvoiceUpdateInput,
  INVOICE_STATES,
  type InvoiceCreateInput,
  type InvoiceListQuery,
  type InvoiceRow,
  type InvoiceState,
  Invoices,
  type PlanProductInput
} from "./model.ts"
import { InvoicesRepo } from "./repo.ts"
import { computeInvoice } from "./totals.ts"
import { invoicesWire, isEditable, type Mode, stateEvents } from "./wire.ts"

/**
 * Invoices, both modes (spec: Invoices): create from plan products, read, list, update (state
 * events, coupon, settings, booking), and the close that sells: every write is one transaction
 * that locks the invoice row, checks every rule before writing, and ends with `recompute`, the
 * only writer of stored amounts (money rule: totals.ts).
 */

export type Caller =
  | { readonly _tag: "Staff"; readonly staffMemberId: number; readonly accountId: number }
  | { readonly _tag: "Client"; readonly personId: number; readonly reach: ReadonlyArray<number> }

export const staffCaller = Effect.gen(function* () {
  const staff = yield* CurrentStaff
  return { _tag: "Staff", staffMemberId: staff.staffMemberId, accountId: staff.accountId } satisfies Caller as Caller
})

export const clientCaller = Effect.gen(function* () {
  yield* privateResponse
  const reach = yield* clientReach
  return { _tag: "Client", personId: reach.selfId, reach: reach.personIds } satisfies Caller as Caller
})

const modeOf = (caller: Caller): Mode => (caller._tag === "Staff" ? "staff" : "client")

export const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

const businessToday = Effect.gen(function* () {
  const business = yield* CurrentBusiness
  return localDateAt(yield* Clock.currentTimeMillis, business.time_zone)
})

/** The invoice, if the caller may see it: staff any of the business's; a client only their own. */
export const findInvoice = Effect.fn("Invoices.find")(function* (caller: Caller, id: number, lock = false) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* InvoicesRepo).find(business.id, id, { lock })
  if (!row || (caller._tag === "Client" && row.person_id !== caller.personId)) {
    return yield* fail(NotFound, { key: "invoice_not_found", params: { id } })
  }
  return row
})

export const requireEditable = (row: InvoiceRow) =>
  isEditable(row) ? Effect.void : fail(Unprocessable, { key: "invoice_not_editable", params: { id: row.id, state: row.state } })

/** Computes the invoice's amounts (totals.ts) and stores them: the one writer of money columns. */
export const recompute = Effect.fn("Invoices.recompute")(function* (invoiceId: number) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  const itemsRepo = yield* InvoiceItemsRepo
  const invoice = (yield* repo.find(business.id, invoiceId))!
  const items = yield* itemsRepo.items(business.id, [invoiceId])
  const adjustments = yield* itemsRepo.adjustments(business.id, items.map((item) => item.id))
  const taxes = yield* itemsRepo.taxes(business.id, [...new Set(items.map((item) => item.plan_product_id))], invoice.location_id)
  const coupon = invoice.coupon_id === null ? undefined : yield* repo.couponById(business.id, invoice.coupon_id)
  const staffAdjustment = (itemId: number, type: string) =>
    adjustments.find((a) => a.invoice_item_id === itemId && a.type === type && a.source_type === null)
  const amounts = computeInvoice(
    items.map((item) => {
      const discount = staffAdjustment(item.id, "Discount")
      return {
        id: item.id,
        priceCents: item.price_cents,
        override: staffAdjustment(item.id, "PriceOverride")?.requested_cents ?? null,
        prorateCents: staffAdjustment(item.id, "ProrateAdjustment")?.requested_cents ?? null,
        discount: discount === undefined ? null : { percent: discount.percent, amountCents: discount.requested_cents },
        taxes: taxes
          .filter((tax) => tax.plan_product_id === item.plan_product_id)
          .map((tax) => ({ salesTaxId: tax.sales_tax_id, name: tax.name, rate: tax.rate, inclusive: tax.inclusive }))
      }
    }),
    coupon === undefined ? null : { id: coupon.id, name: coupon.name, percent: coupon.discount_percent, amountCents: coupon.discount_amount_cents }
  )
  yield* itemsRepo.writeAmounts(business.id, invoiceId, amounts, coupon?.id ?? null, coupon?.name ?? "", yield* now)
})

export const invoiceAnswer = Effect.fn("Invoices.answer")(function* (caller: Caller, id: number) {
  const row = yield* findInvoice(caller, id)
  return { invoices: yield* invoicesWire([row], modeOf(caller)) }
})

// ---------------------------------------------------------------------------------------------
// Items from plan products

export interface PlannedItem {
  readonly plan: ItemInsert
  readonly signupFee: ItemInsert | null
  readonly recipientIds: ReadonlyArray<number>
}

/**
 * Checks one `plan_products` entry (its fields named `${prefix}.field` in messages) and answers
 * the items it becomes: the plan item and, with a signup fee, the fee's own item.
 */
export const planItem = Effect.fn("Invoices.planItem")(function* (
  caller: Caller,
  payerId: number,
  input: PlanProductInput,
  prefix: string,
  problems: Array<Message>
) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  if (input.id === undefined) {
    problems.push({ key: "field_required", params: { field: `${prefix}.id` } })
    return undefined
  }
  const product = yield* repo.product(business.id, input.id)
  if (!product) {
    problems.push({ key: "field_id_not_found", params: { field: `${prefix}.id`, id: input.id } })
    return undefined
  }
  const before = problems.length
  if (product.suspended) problems.push({ key: "invoice_product_suspended", params: { field: `${prefix}.id`, id: product.id } })
  const recipientIds = [...new Set(input.recipient_ids ?? [payerId])]
  if (recipientIds.length === 0) problems.push({ key: "field_required", params: { field: `${prefix}.recipient_ids` } })
  const live = yield* (yield* PeopleRepo).existingIds(business.id, recipientIds.filter((id) => id > 0))
  for (const id of recipientIds) {
    const reachable = caller._tag === "Staff" ? live.has(id) : live.has(id) && caller.reach.includes(id)
    if (!reachable) problems.push({ key: "field_id_not_found", params: { field: `${prefix}.recipient_ids`, id } })
  }
  const staffMemberId = input.staff_member_id ?? null
  let priceCents = product.price_cents
  if (staffMemberId !== null) {
    if (!(yield* repo.exists(business.id, "staff_members", staffMemberId))) {
      problems.push({ key: "field_id_not_found", params: { field: `${prefix}.staff_member_id`, id: staffMemberId } })
    } else if (product.staff_specific_pricing) {
      priceCents = (yield* repo.staffPrice(business.id, product.id, staffMemberId)) ?? product.price_cents
    }
  } else if (product.staff_specific_pricing) {
    problems.push({ key: "field_required", params: { field: `${prefix}.staff_member_id` } })
  }
  const eventId = input.event_id ?? null
  if (eventId !== null && !(yield* repo.exists(business.id, "events", eventId))) {
    problems.push({ key: "field_id_not_found", params: { field: `${prefix}.event_id`, id: eventId } })
  }
  const startDate = input.start_date ?? null
  if (startDate !== null && !isCalendarDate(startDate)) problems.push({ key: "field_must_be_date", params: { field: `${prefix}.start_date` } })
  if (problems.length > before) return undefined
  const item = {
    planProductId: product.id,
    name: product.name,
    description: product.description,
    staffMemberId,
    eventId,
    startDate
  }
  return {
    plan: { ...item, kind: "plan", parentItemId: null, priceCents },
    signupFee:
      product.signup_fee_cents !== null && product.signup_fee_cents > 0
        ? { ...item, kind: "signup_fee", parentItemId: null, name: `${product.name} (signup fee)`, priceCents: product.signup_fee_cents }
        : null,
    recipientIds
  } satisfies PlannedItem
})

/** Inserts a plan item and its signup-fee item. */
export const insertPlanned = Effect.fn("Invoices.insertPlanned")(function* (invoiceId: number, planned: PlannedItem, at: Date) {
  const business = yield* CurrentBusiness
  const itemsRepo = yield* InvoiceItemsRepo
  const id = yield* itemsRepo.insertItem(business.id, invoiceId, planned.plan, planned.recipientIds, at)
  if (planned.signupFee !== null) {
    yield* itemsRepo.insertItem(business.id, invoiceId, { ...planned.signupFee, parentItemId: id }, planned.recipientIds, at)
  }
  return id
})

// ---------------------------------------------------------------------------------------------
// Create, read, list

/**
 * POST invoices. Staff name the payer (`payer_id`); a client pays for themself. Recipients
 * default to the payer (a client may name their dependents). The invoice starts as a `cart`.
 */
export const createInvoice = Effect.fn("Invoices.create")(function* (caller: Caller, input: InvoiceCreateInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  const write = Effect.gen(function* () {
    const id = yield* inTransaction(
      Effect.gen(function* () {
        const problems: Array<Message> = []
        let payerId: number
        if (caller._tag === "Client") payerId = caller.personId
        else if (input.payer_id === undefined) {
          problems.push({ key: "field_required", params: { field: "payer_id" } })
          payerId = 0
        } else {
          payerId = input.payer_id
          const live = yield* (yield* PeopleRepo).existingIds(business.id, [payerId].filter((id) => id > 0))
          if (!live.has(payerId)) problems.push({ key: "field_id_not_found", params: { field: "payer_id", id: payerId } })
        }
        const entries = input.plan_products ?? []
        if (entries.length === 0) problems.push({ key: "field_required", params: { field: "plan_products" } })
        const planned: Array<PlannedItem> = []
        for (const [i, entry] of entries.entries()) {
          const item = yield* planItem(caller, payerId, entry, `plan_products[${i}]`, problems)
          if (item) planned.push(item)
        }
        const bookingId = input.booking_id ?? null
        // A client may tie only a booking of their own.
        const bookingOwner = bookingId === null ? undefined : yield* repo.bookingOwner(business.id, bookingId)
        if (bookingId !== null && (bookingOwner === undefined || (caller._tag === "Client" && bookingOwner !== caller.personId))) {
          problems.push({ key: "field_id_not_found", params: { field: "booking_id", id: bookingId } })
        }
        if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
        const at = yield* now
        const invoiceId = yield* repo.insert({
          businessId: business.id,
          invoiceNumber: yield* repo.nextNumber(business.id),
          invoiceDate: yield* businessToday,
          personId: payerId,
          currency: business.currency_code,
          bookingId,
          createdByStaffMemberId: caller._tag === "Staff" ? caller.staffMemberId : null,
          createdByPersonId: caller._tag === "Client" ? caller.personId : null,
          now: at
        })
        for (const item of planned) yield* insertPlanned(invoiceId, item, at)
        yield* recompute(invoiceId)
        return invoiceId
      })
    )
    return yield* invoiceAnswer(caller, id)
  })
  return yield* idempotent(
    {
      businessId: business.id,
      scope: caller._tag === "Staff" ? `account:${caller.accountId}` : `person:${caller.personId}`,
      key: idempotencyKey,
      request: { endpoint: `POST /api/v2/${caller._tag === "Staff" ? "desk" : "front"}/invoices`, invoice: input },
      response: Invoices,
      status: 201
    },
    write
  )
})

export const getInvoice = (caller: Caller, id: number) => invoiceAnswer(caller, id)

/** GET desk/invoices: newest first, only the list fields. */
export const listInvoices = Effect.fn("Invoices.list")(function* (query: InvoiceListQuery) {
  const business = yield* CurrentBusiness
  const problems: Array<Message> = []
  let states: Array<InvoiceState> | null = null
  if (query.state !== undefined && query.state.trim() !== "") {
    states = []
    for (const part of query.state.split(",").map((s) => s.trim())) {
      if ((INVOICE_STATES as ReadonlyArray<string>).includes(part)) states.push(part as InvoiceState)
      else problems.push({ key: "field_must_be_one_of", params: { field: "state", values: INVOICE_STATES.join(", ") } })
    }
  }
  if (problems.length > 0) return yield* fail(Unprocessable, problems[0]!)
  const page = pageOf(query)
  const { rows, total } = yield* (yield* InvoicesRepo).list(
    business.id,
    {
      states,
      personIds: query.person_ids ?? null,
      createdSince: query.created_since ?? null,
      updatedSince: query.updated_since ?? null
    },
    page
  )
  return { invoices: yield* invoicesWire(rows, "staff_list"), ...(yield* pageLinks(page, total)) }
})

// ---------------------------------------------------------------------------------------------
// Closing

/**
 * Closes an invoice (its row locked by the caller's transaction): each plan item creates a
 * person plan for each recipient (dates from the item's start date and the product; terms for
 * the payer when the product requires them), and a linked booking completes with its leases.
 * Payments close paid invoices through this same function.
 */
export const closeInvoice = Effect.fn("Invoices.close")(function* (invoice: InvoiceRow, caller: Caller | null) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  const itemsRepo = yield* InvoiceItemsRepo
  const at = yield* now
  const today = yield* businessToday
  const items = (yield* itemsRepo.items(business.id, [invoice.id])).filter((item) => item.kind === "plan")
  const recipients = yield* itemsRepo.recipients(business.id, items.map((item) => item.id))
  const prorates = (yield* itemsRepo.adjustments(business.id, items.map((item) => item.id))).filter(
    (a) => a.type === "ProrateAdjustment" && a.source_type === null
  )
  for (const item of items) {
    const product = (yield* repo.product(business.id, item.plan_product_id)) ?? undefined
    if (!product) continue
    const startDate = item.start_date ?? today
    const initialCount = prorates.find((p) => p.invoice_item_id === item.id)?.initial_punchcard_count ?? null
    for (const recipient of recipients.filter((r) => r.invoice_item_id === item.id)) {
      // A renewal invoice (src/billing-runs) names the plan it renews: paying it sells no new plan.
      if (recipient.plan_id !== null) continue
      const planId = yield* createPersonPlan(
        {
          planProductId: product.id,
          type: product.kind === "membership" ? "Membership" : product.kind === "prepaid" ? "Prepaid" : "Pack",
          name: product.name,
          description: product.description,
          priceCents: item.price_cents,
          count: initialCount ?? product.count,
          limitPeriod: product.kind === "membership" || product.kind === "prepaid" ? product.limit_period : null,
          considerMember: product.consider_member,
          visitsShared: true,
          startDate,
          // A membership renews by its billing (no end); the others last their commitment.
          endDate: product.kind === "membership" ? null : commitmentEnd(startDate, product.commitment_length, product.commitment_unit),
          staffMemberId: item.staff_member_id,
          locationId: invoice.location_id,
          createdByStaffMemberId: caller?._tag === "Staff" ? caller.staffMemberId : null
        },
        [recipient.id],
        product.terms_acceptance_required
          ? { payerPersonId: invoice.person_id, acceptanceType: product.terms_acceptance_type, terms: product.terms ?? "" }
          : null,
        at
      )
      yield* itemsRepo.setRecipientPlan(business.id, item.id, recipient.id, planId)
    }
  }
  if (invoice.booking_id !== null) yield* completeInvoicedBooking(business.id, invoice.booking_id)
  yield* repo.setState(business.id, invoice.id, "closed", at)
})

// ---------------------------------------------------------------------------------------------
// Update

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** PUT invoices/:id: settings first, then the state event, in one transaction. */
export const updateInvoice = Effect.fn("Invoices.update")(function* (caller: Caller, id: number, input: DeskInvoiceUpdateInput | FrontInvoiceUpdateInput) {
  const business = yield* CurrentBusiness
  const repo = yield* InvoicesRepo
  const desk: DeskInvoiceUpdateInput = caller._tag === "Staff" ? input : { state_event: input.state_event, coupon_code: input.coupon_code }
  yield* inTransaction(
    Effect.gen(function* () {
      const row = yield* findInvoice(caller, id, true)
      const problems: Array<Message> = []
      const changesSettings = Object.entries(desk).some(([key, value]) => key !== "state_event" && value !== undefined)
      if (changesSettings && !isEditable(row)) return yield* fail(Unprocessable, { key: "invoice_not_editable", params: { id, state: row.state } })

      let couponId = row.coupon_id
      if (desk.coupon_code !== undefined) {
        const code = (desk.coupon_code ?? "").trim()
        if (code === "") couponId = null
        else {
          const coupon = yield* repo.couponByCode(business.id, code)
          if (!coupon || !coupon.active) problems.push({ key: "field_id_not_found", params: { field: "coupon_code", id: code } })
          else couponId = coupon.id
        }
      }
      const lookups = [
        ["location_id", "locations"],
        ["commission_recipient_id", "staff_members"],
        ["tip_recipient_id", "staff_members"],
        ["booking_id", "bookings"]
      ] as const
      for (const [field, table] of lookups) {
        const value = desk[field]
        if (value !== undefined && value !== null && !(yield* repo.exists(business.id, table, value))) {
          problems.push({ key: "field_id_not_found", params: { field, id: value } })
        }
      }
      const sendReceipt = desk.send_receipt ?? row.send_receipt
      const receiptEmail = desk.receipt_email === undefined ? row.receipt_email : desk.receipt_email === null || desk.receipt_email.trim() === "" ? null : desk.receipt_email.trim()
      if (sendReceipt && receiptEmail === null) problems.push({ key: "field_required", params: { field: "receipt_email" } })
      else if (receiptEmail !== null && !EMAIL.test(receiptEmail)) problems.push({ key: "field_is_invalid", params: { field: "receipt_email" } })

      let next: InvoiceState | undefined
      if (desk.state_event !== undefined) {
        const event = desk.state_event
        if (!(INVOICE_STATES as ReadonlyArray<string>).includes(event)) {
          problems.push({ key: "field_must_be_one_of", params: { field: "state_event", values: INVOICE_STATES.join(", ") } })
        } else if (event !== row.state) next = event as InvoiceState
      }
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
      const movesTotal = couponId !== row.coupon_id || (desk.location_id !== undefined && desk.location_id !== row.location_id)
      if (movesTotal) yield* requireUnpaid(row)

      const at = yield* now
      if (changesSettings) {
        yield* repo.setSettings(
          business.id,
          id,
          {
            locationId: desk.location_id === undefined ? row.location_id : desk.location_id,
            couponId,
            commissionRecipientId: desk.commission_recipient_id === undefined ? row.commission_recipient_id : desk.commission_recipient_id,
            tipRecipientId: desk.tip_recipient_id === undefined ? row.tip_recipient_id : desk.tip_recipient_id,
            sendReceipt,
            receiptEmail,
            bookingId: desk.booking_id === undefined ? row.booking_id : desk.booking_id
          },
          at
        )
        yield* recompute(id)
      }
      if (next !== undefined) {
        const current = (yield* repo.find(business.id, id))!
        const live = (yield* (yield* InvoiceItemsRepo).items(business.id, [id])).length
        const outstanding = (yield* (yield* InvoicePayments).ofInvoices(business.id, [current], String)).get(id)!.outstanding
        if (!stateEvents(current, live, modeOf(caller), outstanding).includes(next)) {
          return yield* fail(Unprocessable, { key: "invoice_state_event_invalid", params: { field: "state_event", state: current.state, event: next } })
        }
        if (next === "closed") yield* closeInvoice(current, caller)
        else yield* repo.setState(business.id, id, next, at)
      }
    })
  )
  return yield* invoiceAnswer(caller, id)
})
