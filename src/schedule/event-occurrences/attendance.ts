import { Context, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { staffView } from "../../access/caller.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { requireStandardOrHigher } from "../../access/policies.ts"
import { findOccurrence, getDeskOccurrence } from "./service.ts"
import { EventOccurrencesRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { EventOccurrenceRefusals } from "./refusals.ts"

/**
 * What the schedule asks of billing when an occurrence's attendance is complete: staff pay sits
 * above the schedule, so the schedule declares the question and src/billing/staff-pay/attendance-live.ts
 * answers it (provided in src/app/layers.ts). Runs inside the caller's transaction, so the pays
 * job is enqueued with the flag or not at all.
 */
export class AttendanceCompleted extends Context.Service<AttendanceCompleted, {
  readonly payServices: (businessId: number, occurrenceId: number) => Effect.Effect<void>
}>()("studio/AttendanceCompleted") {}

/**
 * `PUT /api/v2/desk/event_occurrences/:id` with `{"attendance_complete": true}`: the spec shows
 * no way to complete an occurrence's attendance, and service pays follow from it. Standard
 * staff and above; only an active occurrence; idempotent (a second call changes nothing and
 * enqueues nothing). The pays job is enqueued in the same transaction as the flag.
 */
export const completeAttendance = Effect.fn("EventOccurrences.completeAttendance")(function* (id: number) {
  yield* requireStandardOrHigher
  const business = yield* CurrentBusiness
  const occurrence = yield* findOccurrence(id, staffView)
  if (occurrence.state !== "active") {
    return yield* EventOccurrenceRefusals.attendanceNotActive.fail({ id, state: occurrence.state })
  }
  const sql = yield* SqlClient.SqlClient
  const repo = yield* EventOccurrencesRepo
  const pays = yield* AttendanceCompleted
  const at = (yield* currentTime)
  yield* sql
    .withTransaction(
      Effect.gen(function* () {
        if (yield* repo.completeAttendance({ businessId: business.id, id, at })) yield* pays.payServices(business.id, id)
      })
    )
    .pipe(Effect.orDie)
  return yield* getDeskOccurrence(id)
})
