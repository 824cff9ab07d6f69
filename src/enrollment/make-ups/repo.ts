import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { MakeUpReason, MakeUpRow } from "./model.ts"

const COLUMNS = `id, visit_id, person_id, service_id, make_up_reason_id, free_form_reason, expires_on::text as expires_on, created_at`
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const OfVisit = Schema.Struct({ businessId: Schema.Number, visitId: Schema.Number })

export const MakeUpInsert = Schema.Struct({
  visit_id: Schema.Number,
  person_id: Schema.Number,
  service_id: Schema.Number,
  make_up_reason_id: Schema.NullOr(Schema.Number),
  free_form_reason: Schema.NullOr(Schema.String),
  created_by_staff_member_id: Schema.Number,
  created_at: Schema.Date
})
export type MakeUpInsert = typeof MakeUpInsert.Type

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const reasons = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number }),
    Result: MakeUpReason,
    execute: ({ businessId }) => sql`select id, name from make_up_reasons where business_id = ${businessId} order by position, name, id`
  })
  const reason = SqlSchema.findOneOption({
    Request: ById,
    Result: Schema.Struct({ one: Schema.Number }),
    execute: ({ businessId, id }) => sql`select 1 as one from make_up_reasons where business_id = ${businessId} and id = ${id}`
  })
  const serviceOfVisit = SqlSchema.findOneOption({
    Request: OfVisit,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, visitId }) =>
      sql`select o.service_id as id from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          where v.business_id = ${businessId} and v.id = ${visitId}`
  })
  const insert = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, makeUp: MakeUpInsert }),
    Result: MakeUpRow,
    execute: ({ businessId, makeUp }) =>
      sql`insert into make_ups ${sql.insert({ business_id: businessId, ...makeUp })}
          on conflict (business_id, visit_id) do nothing
          returning ${sql.literal(COLUMNS)}`
  })
  const makeUpOfVisit = SqlSchema.findOneOption({
    Request: OfVisit,
    Result: Schema.Struct({ one: Schema.Number }),
    execute: ({ businessId, visitId }) => sql`select 1 as one from make_ups where business_id = ${businessId} and visit_id = ${visitId}`
  })

  return {
    /** The business's reasons, in their position order. */
    reasons: orDie(reasons),
    reasonExists: orDie((request: typeof ById.Type) => reason(request).pipe(Effect.map(Option.isSome))),
    /** The visit's service (through its occurrence), for the make-up to name. */
    serviceOfVisit: orDie((request: typeof OfVisit.Type) => serviceOfVisit(request).pipe(Effect.map(Option.map((row) => row.id)))),
    /** Inserts the make-up unless the visit has one already (one per visit): None then. */
    insert: orDie(insert),
    existsForVisit: orDie((request: typeof OfVisit.Type) => makeUpOfVisit(request).pipe(Effect.map(Option.isSome)))
  }
})

export class MakeUpsRepo extends Context.Service<MakeUpsRepo, Effect.Success<typeof make>>()("studio/MakeUpsRepo") {
  static readonly layer = Layer.effect(MakeUpsRepo)(make)
}
