import { Effect } from "effect"
import { CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { inTransaction } from "../../platform/transactions.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { emitWebhookEvent } from "../../webhooks/emit.ts"
import type { Coverage } from "./choice.ts"
import { type PunchCreateInput, type PunchVisit, toPunchWire } from "./model.ts"
import { PunchesRepo } from "./repo.ts"
import type { NewVisit } from "../../enrollment/visits/payments.ts"
import { PlansRepo } from "../plans/repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { PunchRefusals } from "./refusals.ts"

/**
 * Punches (spec: Punches; staff mode). A punch spends one visit of a plan on one visit and
 * mirrors itself on the visit (punch_id, paid_for_by), in one transaction. Every punch of a plan
 * is decided under that plan's row lock (`select ... for update`), counted again under it, so
 * concurrent punches never spend more visits than the plan has. The visit is locked first (one
 * punch per visit), then the plan.
 */

const coverageOf = (visit: PunchVisit): Coverage => ({
  serviceId: visit.service_id,
  locationId: visit.location_id,
  staffMemberIds: visit.staff_member_ids,
  date: visit.visit_date
})

/**
 * The automatic choice for the visit's person (src/billing/punches/choice.ts), decided under the plan's
 * lock: the best candidate is locked and asked again (another transaction may have spent its
 * last visit meanwhile); if it no longer fits, the next one. Undefined: no suitable plan.
 */
const choosePlan = Effect.fn("Punches.choose")(function* (businessId: number, visit: PunchVisit & { readonly person_id: number }) {
  const repo = yield* PunchesRepo
  const coverage = coverageOf(visit)
  for (const planId of yield* repo.candidates({ businessId, personId: visit.person_id, coverage })) {
    const locked = yield* repo.lockPlan({ businessId, id: planId })
    if (locked && (yield* repo.stillSuitable({ businessId, id: planId, personId: visit.person_id, coverage }))) return planId
  }
  return undefined
})

/** Inserts the punch (the plan is locked), updates the plan's exhaustion and announces punch.created. */
const spend = Effect.fn("Punches.spend")(function* (
  businessId: number,
  visit: PunchVisit & { readonly person_id: number },
  planId: number,
  createdBy: number | null
) {
  const repo = yield* PunchesRepo
  const now = (yield* currentTime)
  const punch = yield* repo.insert({ businessId, visitId: visit.id, planId, personId: visit.person_id, visitDate: visit.visit_date, createdBy, now })
  yield* (yield* PlansRepo).refreshExhausted({ businessId, ids: [planId], now })
  yield* emitWebhookEvent(businessId, "punch.created", Effect.succeed({ punches: [toPunchWire(punch)] }))
  return punch
})

const withPerson = (visit: PunchVisit): visit is PunchVisit & { readonly person_id: number } => visit.person_id !== null

/**
 * Auto-pay (the VisitPayments port of visits): each visit with a person, registered or
 * completed, and not paid yet, is paid by the automatic choice when a suitable plan exists.
 * Runs in the caller's transaction, after the visit is written (and locked by its writer).
 */
export const payVisits = Effect.fn("Punches.payVisits")(function* (businessId: number, visitIds: ReadonlyArray<number>) {
  const repo = yield* PunchesRepo
  for (const visitId of [...new Set(visitIds)].sort((a, b) => a - b)) {
    const visit = yield* repo.visit({ businessId, id: visitId, lock: true })
    if (visit) yield* payVisit(businessId, visit)
  }
})

/** Auto-pay of visits the caller's transaction has just inserted (VisitPayments.payNewVisits): no read, no lock. */
export const payNewVisits = Effect.fn("Punches.payNewVisits")(function* (businessId: number, visits: ReadonlyArray<NewVisit>) {
  for (const visit of [...visits].sort((a, b) => a.id - b.id)) yield* payVisit(businessId, { ...visit, punch_id: null })
})

const payVisit = Effect.fnUntraced(function* (businessId: number, visit: PunchVisit) {
  if (!withPerson(visit) || visit.punch_id !== null) return
  if (visit.state !== "registered" && visit.state !== "completed") return
  const planId = yield* choosePlan(businessId, visit)
  if (planId !== undefined) yield* spend(businessId, visit, planId, null)
})

/** The visits are about to be deleted: their punches go first and their plans get the visits back. */
export const unpayVisits = Effect.fn("Punches.unpayVisits")(function* (businessId: number, visitIds: ReadonlyArray<number>) {
  const repo = yield* PunchesRepo
  const punches = yield* repo.ofVisits({ businessId, ids: visitIds })
  if (punches.length === 0) return
  const now = (yield* currentTime)
  const planIds = [...new Set(punches.map((punch) => punch.plan_id))].sort((a, b) => a - b)
  for (const planId of planIds) yield* repo.lockPlan({ businessId, id: planId })
  yield* repo.delete({ businessId, ids: punches.map((punch) => punch.id), now })
  yield* (yield* PlansRepo).refreshExhausted({ businessId, ids: planIds, now })
})

// ---------------------------------------------------------------------------------------------
// Staff mode

const punchNotFound = (id: number) => PunchRefusals.punchNotFound.fail({ id })

export const getPunch = Effect.fn("Punches.get")(function* (id: number) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* PunchesRepo).find({ businessId: business.id, id })
  if (!row) return yield* punchNotFound(id)
  return { punches: [toPunchWire(row)] }
})

/**
 * POST /desk/punches. A named plan (a pack's id is its plan id) must be held by the visit's
 * person and, on the visit's business-local date, be current, not on hold and have a visit left;
 * staff are unrestricted by the plan's services, location and staff member (those steer only the
 * automatic choice). Without `plan_id` the automatic choice picks one. A visit has one punch:
 * naming the plan that already paid it answers that punch (a client retrying); naming another
 * plan replaces a punch auto-pay made (staff's explicit choice wins: the booking integration
 * punches with the pack it sold for the visit, which auto-pay may have paid with another plan);
 * a punch staff made is never replaced (422).
 */
export const createPunch = Effect.fn("Punches.create")(function* (input: PunchCreateInput) {
  const business = yield* CurrentBusiness
  const staff = yield* CurrentStaff
  const repo = yield* PunchesRepo
  const planId = input.plan_id ?? null
  const punch = yield* inTransaction(
    Effect.gen(function* () {
      const visit = yield* repo.visit({ businessId: business.id, id: input.visit_id, lock: true })
      if (!visit) return yield* PunchRefusals.visitNotFound.fail({ id: input.visit_id })
      if (!withPerson(visit)) return yield* PunchRefusals.punchVisitWithoutPerson.fail({ id: visit.id })
      const [existing] = visit.punch_id === null ? [] : yield* repo.ofVisits({ businessId: business.id, ids: [visit.id] })
      if (existing) {
        if (planId !== null && existing.plan_id === planId) return existing
        // Only a punch auto-pay made gives way, and only to a plan staff name.
        if (planId === null || existing.created_by_staff_member_id !== null) {
          return yield* PunchRefusals.punchVisitAlreadyPaid.fail({ id: visit.id })
        }
      }
      if (planId === null) {
        const chosen = yield* choosePlan(business.id, visit)
        if (chosen === undefined) return yield* PunchRefusals.punchNoSuitablePlan.fail({ id: visit.id })
        return yield* spend(business.id, visit, chosen, staff.staffMemberId)
      }
      // Both plans in id order when an automatic punch is replaced, as two such replacements may cross.
      if (existing && existing.plan_id < planId) yield* repo.lockPlan({ businessId: business.id, id: existing.plan_id })
      if (!(yield* repo.lockPlan({ businessId: business.id, id: planId }))) return yield* PunchRefusals.punchPlanNotFound.fail({ id: planId })
      if (existing && existing.plan_id > planId) yield* repo.lockPlan({ businessId: business.id, id: existing.plan_id })
      const standing = (yield* repo.standing({ businessId: business.id, id: planId, personId: visit.person_id, date: visit.visit_date }))!
      const params = { id: planId, date: visit.visit_date }
      const problems: Array<Message> = []
      if (!standing.held) problems.push(PunchRefusals.punchPlanNotHeld.message(params))
      if (!standing.current) problems.push(PunchRefusals.punchPlanNotCurrent.message(params))
      if (standing.on_hold) problems.push(PunchRefusals.punchPlanOnHold.message(params))
      if (standing.visits_left !== null && standing.visits_left <= 0) problems.push(PunchRefusals.punchPlanUsedUp.message(params))
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)
      if (existing) {
        const now = (yield* currentTime)
        yield* repo.delete({ businessId: business.id, ids: [existing.id], now })
        yield* (yield* PlansRepo).refreshExhausted({ businessId: business.id, ids: [existing.plan_id], now })
      }
      return yield* spend(business.id, visit, planId, staff.staffMemberId)
    })
  )
  // The punch as written (or the one already there): nothing is read back.
  return { punches: [toPunchWire(punch)] }
})

/** DELETE /desk/punches/:id: the visit becomes unpaid and the plan gets its visit back. */
export const deletePunch = Effect.fn("Punches.delete")(function* (id: number) {
  const business = yield* CurrentBusiness
  const repo = yield* PunchesRepo
  yield* inTransaction(
    Effect.gen(function* () {
      const row = yield* repo.find({ businessId: business.id, id })
      if (!row) return yield* punchNotFound(id)
      // The plan first, as every punch writer locks it: its count is decided under that lock.
      yield* repo.lockPlan({ businessId: business.id, id: row.plan_id })
      const now = (yield* currentTime)
      const planIds = yield* repo.delete({ businessId: business.id, ids: [id], now })
      if (planIds.length === 0) return yield* punchNotFound(id)
      yield* (yield* PlansRepo).refreshExhausted({ businessId: business.id, ids: planIds, now })
    })
  )
})
