import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { PeopleRepo } from "../../identity/people/repo.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { idempotent } from "../../shared/idempotency.ts"
import { isCalendarDate } from "../../shared/zoned-time.ts"
import { emitWebhookEvent } from "../../webhooks/emit.ts"
import { expirationEnd, type PackCreateInput, Packs } from "./model.ts"
import { PlansRepo } from "./repo.ts"
import { type PlanInsert } from "./writes-repo.ts"
import { findPlan, packWire, planPayload } from "./service.ts"
import { currentTime } from "../../shared/clock.ts"
import { MAX_INT } from "../../shared/schemas.ts"
import { businessToday } from "../../access/tenant.ts"
import { businessMoney } from "../../access/tenant.ts"
import { PlanRefusals } from "./refusals.ts"

/**
 * Packs (spec: Pack; compatibility notes: the booking integration's calls). A pack is a plan of
 * type Pack sold from a pack product, and its id is the plan id: punches take it as plan_id.
 */

export const getPack = Effect.fn("Packs.get")(function* (id: number) {
  const row = yield* findPlan(id, true)
  return { packs: [packWire(row, yield* businessMoney)] }
})

/** Checks of the body against the product and the business; one message per failed rule. */
const packFields = Effect.fn("Packs.fields")(function* (productId: number, input: PackCreateInput) {
  const business = yield* CurrentBusiness
  const repo = yield* PlansRepo
  const product = yield* repo.packProduct({ businessId: business.id, id: productId })
  if (!product) return yield* PlanRefusals.packsProductNotFound.fail({ id: productId })
  const problems: Array<Message> = []
  if (product.suspended) problems.push(PlanRefusals.packsProductSuspended.message({ id: productId }))

  const personIds = [...new Set(input.person_ids ?? [])]
  if (personIds.length === 0) problems.push(PlanRefusals.fieldRequired.message({ field: "person_ids" }))
  else {
    const live = yield* (yield* PeopleRepo).existingIds({ businessId: business.id, ids: personIds.filter((id) => id > 0) })
    for (const id of personIds) if (!live.has(id)) problems.push(PlanRefusals.fieldIdNotFound.message({ field: "person_ids", id }))
  }

  const startDate = input.start_date ?? (yield* businessToday)
  if (!isCalendarDate(startDate)) problems.push(PlanRefusals.fieldMustBeDate.message({ field: "start_date" }))
  const endDate = input.end_date === undefined ? expirationEnd(startDate, product.commitment_length, product.commitment_unit) : input.end_date
  if (endDate !== null && !isCalendarDate(endDate)) problems.push(PlanRefusals.fieldMustBeDate.message({ field: "end_date" }))
  else if (endDate !== null && endDate < startDate) {
    problems.push(PlanRefusals.planEndBeforeStart.message({ field: "end_date", date: startDate }))
  }

  const count = input.count ?? product.count
  if (count < 1) problems.push(PlanRefusals.fieldMustBeAtLeast.message({ field: "count", min: 1 }))
  else if (count > MAX_INT) problems.push(PlanRefusals.fieldMustBeAtMost.message({ field: "count", max: MAX_INT }))
  const priceCents = input.price_cents ?? product.price_cents
  if (priceCents < 0) problems.push(PlanRefusals.fieldMustBeAtLeast.message({ field: "price_cents", min: 0 }))
  else if (priceCents > MAX_INT) problems.push(PlanRefusals.fieldMustBeAtMost.message({ field: "price_cents", max: MAX_INT }))

  const staffMemberId = input.staff_member_id ?? null
  if (staffMemberId !== null && !(yield* repo.exists({ businessId: business.id, table: "staff_members", id: staffMemberId })).found) {
    problems.push(PlanRefusals.fieldIdNotFound.message({ field: "staff_member_id", id: staffMemberId }))
  }
  const locationId = input.location_id ?? null
  if (locationId !== null && !(yield* repo.exists({ businessId: business.id, table: "locations", id: locationId })).found) {
    problems.push(PlanRefusals.fieldIdNotFound.message({ field: "location_id", id: locationId }))
  }
  if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
  return {
    product,
    personIds,
    plan: {
      planProductId: product.id,
      type: "Pack" as const,
      name: product.name,
      description: input.description ?? product.description,
      priceCents,
      count,
      considerMember: product.consider_member,
      visitsShared: input.visits_shared ?? personIds.length === 1,
      startDate,
      endDate,
      staffMemberId,
      locationId
    }
  }
})

/**
 * The one way a person plan is created (a pack given here, a plan product sold by an invoice):
 * the plan and its people, its terms record when the product requires terms (accepted by the
 * payer), and plan.created and person_plan.created, all on the caller's transaction.
 */
export const createPersonPlan = Effect.fn("Plans.createPersonPlan")(function* (
  plan: PlanInsert,
  personIds: ReadonlyArray<number>,
  terms: { readonly payerPersonId: number; readonly acceptanceType: string; readonly terms: string } | null,
  at: Date
) {
  const business = yield* CurrentBusiness
  const repo = yield* PlansRepo
  const id = yield* repo.insert({ businessId: business.id, ...plan, personIds, now: at })
  if (terms !== null) yield* repo.insertTerms({ businessId: business.id, planId: id, ...terms, now: at })
  yield* emitWebhookEvent(business.id, "plan.created", planPayload(id))
  yield* emitWebhookEvent(business.id, "person_plan.created", planPayload(id))
  return id
})

/**
 * POST /desk/pack_products/:id/packs. Any staff member may give a pack (only the pack product
 * endpoints need a manager). With terms to accept, the plan's terms record is created for the
 * primary person (the payer). plan.created and person_plan.created go out with the plan.
 */
export const createPack = Effect.fn("Packs.create")(function* (productId: number, input: PackCreateInput, idempotencyKey: string | undefined) {
  const business = yield* CurrentBusiness
  const staff = yield* CurrentStaff
  const repo = yield* PlansRepo
  const sql = yield* SqlClient.SqlClient
  const write = Effect.gen(function* () {
    const fields = yield* packFields(productId, input)
    const at = yield* currentTime
    const id = yield* sql.withTransaction(
      createPersonPlan(
        { ...fields.plan, createdByStaffMemberId: staff.staffMemberId },
        fields.personIds,
        fields.product.terms_acceptance_required
          ? { payerPersonId: fields.personIds[0]!, acceptanceType: fields.product.terms_acceptance_type, terms: fields.product.terms ?? "" }
          : null,
        at
      )
    ).pipe(Effect.catchTag("SqlError", Effect.die))
    return { packs: [packWire((yield* repo.find({ businessId: business.id, today: yield* businessToday, id }))!, yield* businessMoney)] }
  })
  return yield* idempotent(
    {
      businessId: business.id,
      scope: `account:${staff.accountId}`,
      key: idempotencyKey,
      request: { endpoint: "POST /api/v2/desk/pack_products/:pack_product_id/packs", pack_product_id: productId, pack: input },
      response: Packs,
      status: 201
    },
    write
  )
})

/** DELETE /desk/packs/:id: the visits it paid become unpaid; punches, holds and terms go with it. */
export const deletePack = Effect.fn("Packs.delete")(function* (id: number) {
  const business = yield* CurrentBusiness
  const repo = yield* PlansRepo
  const sql = yield* SqlClient.SqlClient
  const at = yield* currentTime
  yield* sql.withTransaction(
    Effect.gen(function* () {
      if (!(yield* repo.lock({ businessId: business.id, id }))) return yield* PlanRefusals.packNotFound.fail({ id })
      yield* findPlan(id, true)
      yield* repo.delete({ businessId: business.id, id, now: at })
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
})
