import { Effect, Option } from "effect"
import { CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { PeopleRepo } from "../../identity/people/repo.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { idempotent } from "../../shared/idempotency.ts"
import { isCalendarDate } from "../../shared/zoned-time.ts"
import { InvoiceItemsRepo } from "./items-repo.ts"
import { type InvoiceCreateInput, Invoices, type PlanProductInput } from "./model.ts"
import { InvoiceRefsRepo, type SoldProduct } from "./refs-repo.ts"
import { type Caller, householdOf, personOf } from "../../access/caller.ts"
import { type PlannedItem, writeNew } from "./create-write.ts"
import { wireOf } from "./wire.ts"
import { InvoiceRefusals } from "./refusals.ts"

/**
 * Creating invoices: plan products checked into items (`planItem`, also used when items are
 * added to an open invoice: items.ts) and the POST that starts a cart.
 */

// ---------------------------------------------------------------------------------------------
// Items from plan products

/**
 * Checks one `plan_products` entry (its fields named `${prefix}.field` in messages) and answers
 * the items it becomes: the plan item and, with a signup fee, the fee's own item.
 */
export const planItem = Effect.fn("Invoices.planItem")(function* (
  caller: Caller,
  payerId: number,
  input: PlanProductInput,
  prefix: string,
  problems: Array<Message>,
  /** What the caller has read already (the create reads all its people and products at once). */
  known?: { readonly live: ReadonlySet<number>; readonly products: ReadonlyMap<number, SoldProduct> }
) {
  const business = yield* CurrentBusiness
  const refs = yield* InvoiceRefsRepo
  if (input.id === undefined) {
    problems.push(InvoiceRefusals.fieldRequired.message({ field: `${prefix}.id` }))
    return undefined
  }
  const product = known ? known.products.get(input.id) : yield* refs.product({ businessId: business.id, id: input.id })
  if (!product) {
    problems.push(InvoiceRefusals.fieldIdNotFound.message({ field: `${prefix}.id`, id: input.id }))
    return undefined
  }
  const before = problems.length
  if (product.suspended) problems.push(InvoiceRefusals.invoiceProductSuspended.message({ field: `${prefix}.id`, id: product.id }))
  const recipientIds = [...new Set(input.recipient_ids ?? [payerId])]
  if (recipientIds.length === 0) problems.push(InvoiceRefusals.fieldRequired.message({ field: `${prefix}.recipient_ids` }))
  const live = known?.live ?? (yield* (yield* PeopleRepo).existingIds({ businessId: business.id, ids: recipientIds.filter((id) => id > 0) }))
  for (const id of recipientIds) {
    const reachable = caller._tag === "Staff" ? live.has(id) : live.has(id) && householdOf(caller).includes(id)
    if (!reachable) problems.push(InvoiceRefusals.fieldIdNotFound.message({ field: `${prefix}.recipient_ids`, id }))
  }
  const staffMemberId = input.staff_member_id ?? null
  let priceCents = product.price_cents
  if (staffMemberId !== null) {
    if (!(yield* refs.exists({ businessId: business.id, table: "staff_members", id: staffMemberId })).found) {
      problems.push(InvoiceRefusals.fieldIdNotFound.message({ field: `${prefix}.staff_member_id`, id: staffMemberId }))
    } else if (product.staff_specific_pricing) {
      priceCents = (yield* refs.staffPrice({ businessId: business.id, productId: product.id, staffMemberId }))?.price_cents ?? product.price_cents
    }
  } else if (product.staff_specific_pricing) {
    problems.push(InvoiceRefusals.fieldRequired.message({ field: `${prefix}.staff_member_id` }))
  }
  const eventId = input.event_id ?? null
  if (eventId !== null && !(yield* refs.exists({ businessId: business.id, table: "events", id: eventId })).found) {
    problems.push(InvoiceRefusals.fieldIdNotFound.message({ field: `${prefix}.event_id`, id: eventId }))
  }
  const startDate = input.start_date ?? null
  if (startDate !== null && !isCalendarDate(startDate)) problems.push(InvoiceRefusals.fieldMustBeDate.message({ field: `${prefix}.start_date` }))
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
    recipientIds,
    taxes: product.taxes
  } satisfies PlannedItem
})

/** Inserts a plan item and its signup-fee item. */
export const insertPlanned = Effect.fn("Invoices.insertPlanned")(function* (invoiceId: number, planned: PlannedItem, at: Date) {
  const business = yield* CurrentBusiness
  const itemsRepo = yield* InvoiceItemsRepo
  const id = yield* itemsRepo.insertItem({ businessId: business.id, invoiceId, ...planned.plan, personIds: planned.recipientIds, now: at })
  if (planned.signupFee !== null) {
    yield* itemsRepo.insertItem({
      businessId: business.id,
      invoiceId,
      ...planned.signupFee,
      parentItemId: id,
      personIds: planned.recipientIds,
      now: at
    })
  }
  return id
})

// ---------------------------------------------------------------------------------------------
// Create

/** Every rule of a POST invoices body, checked before one 422 naming each problem. */
const checkCreate = Effect.fn("Invoices.checkCreate")(function* (caller: Caller, input: InvoiceCreateInput) {
  const business = yield* CurrentBusiness
  const problems: Array<Message> = []
  const entries = input.plan_products ?? []
  const payerId = caller._tag === "Client" ? caller.personId : (input.payer_id ?? 0)
  // The staff member's own person names them in the answer (`created_by`).
  const staffPersonId = caller._tag === "Staff" ? Option.map(yield* Effect.serviceOption(CurrentStaff), (staff) => staff.personId) : Option.none()
  // One read checks and names the payer and every recipient (they default to the payer), and the staff member, and
  // reads the products sold.
  const wanted = [payerId, ...entries.flatMap((entry) => entry.recipient_ids ?? [payerId]), ...Option.toArray(staffPersonId)].filter((id) => id > 0)
  const { people, products } = yield* (yield* InvoiceRefsRepo).peopleAndProducts({
    businessId: business.id,
    personIds: [...new Set(wanted)],
    productIds: [...new Set(entries.flatMap((entry) => (entry.id === undefined ? [] : [entry.id])))]
  })
  const live = new Set(people.filter((person) => person.live).map((person) => person.id))
  const known = { live, products: new Map(products.map((product) => [product.id, product])) }
  if (caller._tag === "Staff") {
    if (input.payer_id === undefined) problems.push(InvoiceRefusals.fieldRequired.message({ field: "payer_id" }))
    else if (!live.has(payerId)) problems.push(InvoiceRefusals.fieldIdNotFound.message({ field: "payer_id", id: payerId }))
  }
  if (entries.length === 0) problems.push(InvoiceRefusals.fieldRequired.message({ field: "plan_products" }))
  const planned: Array<PlannedItem> = []
  for (const [i, entry] of entries.entries()) {
    const item = yield* planItem(caller, payerId, entry, `plan_products[${i}]`, problems, known)
    if (item) planned.push(item)
  }
  const bookingId = input.booking_id ?? null
  // A client may tie only a booking of their own.
  const bookingOwner = bookingId === null ? undefined : (yield* (yield* InvoiceRefsRepo).bookingOwner({ businessId: business.id, id: bookingId }))?.person_id
  if (bookingId !== null && (bookingOwner === undefined || (caller._tag !== "Staff" && bookingOwner !== personOf(caller)))) {
    problems.push(InvoiceRefusals.fieldIdNotFound.message({ field: "booking_id", id: bookingId }))
  }
  if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
  return { payerId, planned, bookingId, people, staffPersonId: Option.getOrUndefined(staffPersonId) }
})

/**
 * POST invoices. Staff name the payer (`payer_id`); a client pays for themself. Recipients
 * default to the payer (a client may name their dependents). The invoice starts as a `cart`.
 * Its rows are written once, in their final state, by one statement (writeNew), and the answer is
 * built from them.
 */
export const createInvoice = Effect.fn("Invoices.create")(function* (caller: Caller, input: InvoiceCreateInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  // The checks only read; the write is one statement (writeNew), so no transaction is opened.
  const write = Effect.gen(function* () {
    const { row, shown } = yield* writeNew(caller, yield* checkCreate(caller, input))
    return { invoices: yield* wireOf([row], caller, shown) }
  })
  return yield* idempotent(
    {
      businessId: business.id,
      scope: caller._tag === "Staff" ? `account:${caller.accountId}` : `person:${personOf(caller)}`,
      key: idempotencyKey,
      request: { endpoint: `POST /api/v2/${caller._tag === "Staff" ? "desk" : "front"}/invoices`, invoice: input },
      response: Invoices,
      status: 201
    },
    write
  )
})
