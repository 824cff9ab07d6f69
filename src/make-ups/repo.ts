import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { MakeUpReason, MakeUpRow } from "./model.ts"

const decodeReasons = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number, name: Schema.String })))
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(MakeUpRow))
const COLUMNS = `id, visit_id, person_id, service_id, make_up_reason_id, free_form_reason, expires_on::text as expires_on, created_at`

export interface MakeUpInsert {
  readonly visit_id: number
  readonly person_id: number
  readonly service_id: number
  readonly make_up_reason_id: number | null
  readonly free_form_reason: string | null
  readonly created_by_staff_member_id: number
  readonly created_at: Date
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    /** The business's reasons, in their position order. */
    reasons: (businessId: number) =>
      sql`select id, name from make_up_reasons where business_id = ${businessId} order by position, name, id`.pipe(
        Effect.flatMap(decodeReasons),
        Effect.map((rows): ReadonlyArray<typeof MakeUpReason.Type> => rows),
        Effect.orDie
      ),

    reasonExists: (businessId: number, id: number) =>
      sql`select 1 as one from make_up_reasons where business_id = ${businessId} and id = ${id}`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),

    /** The visit's service (through its occurrence), for the make-up to name. */
    serviceOfVisit: (businessId: number, visitId: number) =>
      sql`select o.service_id as id from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          where v.business_id = ${businessId} and v.id = ${visitId}`.pipe(
        Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))),
        Effect.map((rows) => Option.fromNullishOr(rows[0]?.id)),
        Effect.orDie
      ),

    /** Inserts the make-up unless the visit has one already (one per visit): None then. */
    insert: (businessId: number, makeUp: MakeUpInsert) =>
      sql`insert into make_ups ${sql.insert({ business_id: businessId, ...makeUp })}
          on conflict (business_id, visit_id) do nothing
          returning ${sql.literal(COLUMNS)}`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => Option.fromNullishOr(rows[0])),
        Effect.orDie
      ),

    existsForVisit: (businessId: number, visitId: number) =>
      sql`select 1 as one from make_ups where business_id = ${businessId} and visit_id = ${visitId}`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )
  }
})

export class MakeUpsRepo extends Context.Service<MakeUpsRepo, Effect.Success<typeof make>>()("studio/MakeUpsRepo") {
  static readonly layer = Layer.effect(MakeUpsRepo)(make)
}
