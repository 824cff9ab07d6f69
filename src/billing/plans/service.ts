import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { clientReach, requireInReach, requireLivePerson } from "../../identity/people/client-reach.ts"
import { privateResponse } from "../../shared/cache-headers.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { type PersonTarget, formatTimestamp } from "../../shared/schemas.ts"
import { isCalendarDate } from "../../shared/zoned-time.ts"
import { emitWebhookEvent } from "../../webhooks/emit.ts"
import { type HoldInput, type HoldRow, type HoldWire, type PackWire, type PersonPlanListQuery, type PlanListQuery, type PlanRow, type PlanUpdateInput, type PlanWire } from "./model.ts"
import { PlansRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { businessToday } from "../../access/tenant.ts"
import { businessMoney } from "../../access/tenant.ts"
import { PlanRefusals } from "./refusals.ts"

/**
 * Person plans (spec: Plans and person plans): the lists, holds and state changes, and the
 * record shapes packs (packs.ts) share. A sold plan copies its product (name, count, price,
 * consider_member) so a later product edit never changes it. Dates are business-local calendar
 * dates; "today" comes from Clock in the business's time zone. Every write is one transaction
 * with its webhooks.
 */



// ---------------------------------------------------------------------------------------------
// Wire shapes

const holdWire = (row: HoldRow): HoldWire => ({
  id: row.id,
  start_date: row.start_date,
  end_date: row.end_date,
  created_at: formatTimestamp(row.created_at)
})


const planWire = (row: PlanRow, price: (cents: number) => string, holds?: ReadonlyArray<HoldRow>): PlanWire => ({
  id: row.id,
  count: row.count,
  type: row.type,
  person_ids: row.person_ids,
  name: row.name,
  description: row.description,
  price_cents: row.price_cents,
  price: price(row.price_cents),
  consider_member: row.consider_member,
  plan_product_id: row.plan_product_id,
  start_date: row.start_date,
  end_date: row.end_date,
  staff_member_id: row.staff_member_id,
  location_id: row.location_id,
  canceled_at: row.canceled_at === null ? null : formatTimestamp(row.canceled_at),
  deactivated_at: row.deactivated_at === null ? null : formatTimestamp(row.deactivated_at),
  limit_period: row.limit_period,
  rollover_count: row.rollover_count,
  visits_shared: row.visits_shared,
  visits_remaining: row.visits_remaining,
  on_hold: row.on_hold,
  ...(holds === undefined ? {} : { holds: holds.filter((hold) => hold.plan_id === row.id).map(holdWire) }),
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at)
})

export const packWire = (row: PlanRow, price: (cents: number) => string): PackWire => ({
  id: row.id,
  count: row.count ?? 0,
  person_ids: row.person_ids,
  description: row.description,
  price_cents: row.price_cents,
  price: price(row.price_cents),
  rollover_count: row.rollover_count,
  pack_product_id: row.plan_product_id,
  start_date: row.start_date,
  end_date: row.end_date,
  staff_member_id: row.staff_member_id,
  location_id: row.location_id,
  visits_shared: row.visits_shared,
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at)
})

/** A plan as webhooks carry it: the desk record, holds included. */
export const planPayload = Effect.fn("Plans.payload")(function* (id: number) {
  const business = yield* CurrentBusiness
  const repo = yield* PlansRepo
  const row = yield* repo.find({ businessId: business.id, today: yield* businessToday, id })
  if (!row) return { plans: [] }
  return { plans: [planWire(row, yield* businessMoney, yield* repo.holds({ businessId: business.id, planIds: [id] }))] }
})

// ---------------------------------------------------------------------------------------------
// Lists

const listWith = Effect.fn("Plans.list")(function* (
  query: PlanListQuery & { readonly filter?: PersonPlanListQuery["filter"] },
  personId: number | undefined
) {
  const business = yield* CurrentBusiness
  const repo = yield* PlansRepo
  const page = pageOf(query)
  const { rows, total } = yield* repo.list({ businessId: business.id, today: yield* businessToday, personId, filter: query.filter, page })
  const holds = query.include_holds === true ? yield* repo.holds({ businessId: business.id, planIds: rows.map((row) => row.id) }) : undefined
  const price = yield* businessMoney
  return { plans: rows.map((row) => planWire(row, price, holds)), ...(yield* pageLinks(page, total)) }
})

/** Every plan of the business, newest start first. */
export const listDeskPlans = (query: PlanListQuery) => listWith(query, undefined)

export const listDeskPersonPlans = Effect.fn("Plans.deskPersonList")(function* (target: PersonTarget, query: PersonPlanListQuery) {
  const personId = target === "me" ? (yield* CurrentStaff).personId : target
  yield* requireLivePerson(personId)
  return yield* listWith(query, personId)
})

/** Client mode: the token's person and their dependents; anyone else is not found. */
export const listFrontPersonPlans = Effect.fn("Plans.frontPersonList")(function* (target: PersonTarget, query: PersonPlanListQuery) {
  yield* privateResponse
  const reach = yield* clientReach
  const personId = target === "me" ? reach.selfId : target
  yield* requireInReach(reach, personId)
  return yield* listWith(query, personId)
})

// ---------------------------------------------------------------------------------------------
// Finding a plan

export const findPlan = Effect.fn("Plans.find")(function* (id: number, packsOnly: boolean) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* PlansRepo).find({ businessId: business.id, today: yield* businessToday, id, packsOnly })
  if (!row) return yield* (packsOnly ? PlanRefusals.packNotFound : PlanRefusals.planNotFound).fail({ id })
  return row
})

// ---------------------------------------------------------------------------------------------
// Holds and state

/** Locks the plan for a change, then runs `change` and announces plan.updated, in one transaction. */
const changePlan = <A, E, R>(id: number, change: (row: PlanRow) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const business = yield* CurrentBusiness
    const repo = yield* PlansRepo
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        if (!(yield* repo.lock({ businessId: business.id, id }))) return yield* PlanRefusals.planNotFound.fail({ id })
        const result = yield* change(yield* findPlan(id, false))
        yield* repo.touch({ businessId: business.id, id, now: yield* currentTime })
        yield* emitWebhookEvent(business.id, "plan.updated", planPayload(id))
        return result
      })
    ).pipe(Effect.catchTag("SqlError", Effect.die))
  })

const planAnswer = Effect.fn("Plans.answer")(function* (id: number) {
  const business = yield* CurrentBusiness
  const repo = yield* PlansRepo
  const row = (yield* repo.find({ businessId: business.id, today: yield* businessToday, id }))!
  return { plans: [planWire(row, yield* businessMoney, yield* repo.holds({ businessId: business.id, planIds: [id] }))] }
})

/** A pause from start_date (default today) through end_date (null: until removed); holds may not overlap. */
export const addHold = Effect.fn("Plans.addHold")(function* (planId: number, input: HoldInput) {
  const business = yield* CurrentBusiness
  const staff = yield* CurrentStaff
  const repo = yield* PlansRepo
  const today = yield* businessToday
  const holdId = yield* changePlan(planId, () =>
    Effect.gen(function* () {
      const startDate = input.start_date ?? today
      const endDate = input.end_date ?? null
      const problems: Array<Message> = []
      if (!isCalendarDate(startDate)) problems.push(PlanRefusals.fieldMustBeDate.message({ field: "start_date" }))
      if (endDate !== null && !isCalendarDate(endDate)) problems.push(PlanRefusals.fieldMustBeDate.message({ field: "end_date" }))
      else if (endDate !== null && endDate < startDate) {
        problems.push(PlanRefusals.planEndBeforeStart.message({ field: "end_date", date: startDate }))
      }
      if (problems.length === 0 && (yield* repo.overlappingHolds({ businessId: business.id, planId, startDate, endDate })).length > 0) {
        problems.push(PlanRefusals.planHoldOverlaps.message())
      }
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
      const { id } = yield* repo.insertHold({ businessId: business.id, planId, startDate, endDate, accountId: staff.accountId, now: yield* currentTime })
      return id
    }))
  const holds = yield* repo.holds({ businessId: business.id, planIds: [planId] })
  return { holds: holds.filter((hold) => hold.id === holdId).map(holdWire) }
})

export const removeHold = Effect.fn("Plans.removeHold")(function* (planId: number, holdId: number) {
  const business = yield* CurrentBusiness
  const repo = yield* PlansRepo
  yield* changePlan(planId, () =>
    Effect.gen(function* () {
      if (!(yield* repo.deleteHold({ businessId: business.id, planId, id: holdId }))) {
        return yield* PlanRefusals.planHoldNotFound.fail({ id: holdId })
      }
    }))
})

/**
 * PUT /desk/plans/:id. `cancel` records who canceled and ends the plan at end_date (default
 * today); `deactivate` stops it at once (not current from then on); `reactivate` undoes a
 * deactivation. `end_date` alone moves the plan's last day.
 */
export const updatePlan = Effect.fn("Plans.update")(function* (id: number, input: PlanUpdateInput) {
  const business = yield* CurrentBusiness
  const staff = yield* CurrentStaff
  const repo = yield* PlansRepo
  const today = yield* businessToday
  yield* changePlan(id, (row) =>
    Effect.gen(function* () {
      const at = yield* currentTime
      const problems: Array<Message> = []
      if (input.state_event === undefined && input.end_date === undefined) {
        problems.push(PlanRefusals.fieldRequired.message({ field: "state_event" }))
      }
      const endDate = input.end_date === undefined ? undefined : input.end_date
      if (endDate !== undefined && endDate !== null) {
        if (!isCalendarDate(endDate)) problems.push(PlanRefusals.fieldMustBeDate.message({ field: "end_date" }))
        else if (endDate < row.start_date) problems.push(PlanRefusals.planEndBeforeStart.message({ field: "end_date", date: row.start_date }))
      }
      if (input.state_event === "cancel" && row.canceled_at !== null) problems.push(PlanRefusals.planAlreadyCanceled.message())
      if (input.state_event === "deactivate" && row.deactivated_at !== null) problems.push(PlanRefusals.planAlreadyDeactivated.message())
      if (input.state_event === "reactivate" && row.deactivated_at === null) problems.push(PlanRefusals.planNotDeactivated.message())
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
      switch (input.state_event) {
        case "cancel": {
          // A plan canceled before it starts ends the day it would have started.
          const last = endDate ?? (today < row.start_date ? row.start_date : today)
          return yield* repo.updateState({ businessId: business.id, id, endDate: last, canceled: { at, accountId: staff.accountId }, now: at })
        }
        case "deactivate":
          return yield* repo.updateState({ businessId: business.id, id, deactivatedAt: at, ...(endDate === undefined ? {} : { endDate }), now: at })
        case "reactivate":
          return yield* repo.updateState({ businessId: business.id, id, deactivatedAt: null, ...(endDate === undefined ? {} : { endDate }), now: at })
        case undefined:
          return yield* repo.updateState({ businessId: business.id, id, endDate: endDate ?? null, now: at })
      }
    }))
  return yield* planAnswer(id)
})

export const getDeskPlan = Effect.fn("Plans.deskGet")(function* (id: number) {
  yield* findPlan(id, false)
  return yield* planAnswer(id)
})
