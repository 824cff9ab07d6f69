import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { VisitsRepo } from "../visits/repo.ts"
import { FREE_FORM_REASON_MAX, type GenerateMakeUpInput, type MakeUpRow, type MakeUpWire } from "./model.ts"
import { MakeUpsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { MakeUpRefusals } from "./refusals.ts"

const toWire = (row: MakeUpRow): MakeUpWire => ({
  id: row.id,
  visit_id: row.visit_id,
  person_id: row.person_id,
  service_id: row.service_id,
  make_up_reason_id: row.make_up_reason_id,
  free_form_reason: row.free_form_reason,
  expires_on: row.expires_on,
  created_at: formatTimestamp(row.created_at)
})

export const listMakeUpReasons = Effect.fn("MakeUps.reasons")(function* () {
  const business = yield* CurrentBusiness
  return { make_up_reasons: yield* (yield* MakeUpsRepo).reasons({ businessId: business.id }) }
})

/**
 * A make-up for a late-canceled visit (a no-show did not cancel: it earns none), one per
 * visit. `make_up`, when sent, must name one of the business's reasons.
 */
export const generateMakeUp = Effect.fn("MakeUps.generate")(function* (input: GenerateMakeUpInput) {
  const business = yield* CurrentBusiness
  const staff = yield* CurrentStaff
  const repo = yield* MakeUpsRepo
  if (input.visit_id === undefined) return yield* MakeUpRefusals.fieldRequired.fail({ field: "visit_id" })
  const visitId = input.visit_id
  const sql = yield* SqlClient.SqlClient
  // The visit stays locked until the make-up is written, so a concurrent reset cannot slip in between.
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const visit = yield* (yield* VisitsRepo).findForUpdate({ businessId: business.id, id: visitId })
      if (!visit) return yield* MakeUpRefusals.visitNotFound.fail({ id: visitId })

      const problems: Array<Message> = []
      if (visit.state !== "late_canceled") problems.push(MakeUpRefusals.makeUpVisitNotLateCanceled.message({ state: visit.state }))
      if (yield* repo.existsForVisit({ businessId: business.id, visitId })) problems.push(MakeUpRefusals.makeUpExists.message({ id: visitId }))
      const details = input.make_up ?? null
      const reasonId = details?.make_up_reason_id ?? null
      if (details !== null && reasonId === null) {
        problems.push(MakeUpRefusals.fieldRequired.message({ field: "make_up.make_up_reason_id" }))
      } else if (reasonId !== null && !(yield* repo.reasonExists({ businessId: business.id, id: reasonId }))) {
        problems.push(MakeUpRefusals.fieldIdNotFound.message({ field: "make_up.make_up_reason_id", id: reasonId }))
      }
      const freeForm = details?.free_form_reason?.trim() || null
      if (freeForm !== null && freeForm.length > FREE_FORM_REASON_MAX) {
        problems.push(MakeUpRefusals.fieldTooLong.message({ field: "make_up.free_form_reason", max: FREE_FORM_REASON_MAX }))
      }
      if (problems.length > 0) return yield* fail(Unprocessable, ...problems)

      const serviceId = yield* repo.serviceOfVisit({ businessId: business.id, visitId })
      const inserted = yield* repo.insert({ businessId: business.id, makeUp: {
        visit_id: visitId,
        // A late-canceled visit always has a person (the table's check).
        person_id: visit.person_id!,
        service_id: Option.getOrThrow(serviceId),
        make_up_reason_id: reasonId,
        free_form_reason: freeForm,
        created_by_staff_member_id: staff.staffMemberId,
        created_at: (yield* currentTime)
      } })
      // A concurrent request made it first: the unique key decided, same answer as the check.
      if (Option.isNone(inserted)) return yield* MakeUpRefusals.makeUpExists.fail({ id: visitId })
      return { make_ups: [toWire(inserted.value)] }
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
})
