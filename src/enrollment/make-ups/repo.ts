import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { MakeUpReason, MakeUpRow } from "./model.ts"

const COLUMNS = `id, visit_id, person_id, service_id, make_up_reason_id, free_form_reason, expires_on::text as expires_on, created_at`
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })

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
    Request: Schema.Number,
    Result: MakeUpReason,
    execute: (businessId) => sql`select id, name from make_up_reasons where business_id = ${businessId} order by position, name, id`
  })
  const reason = SqlSchema.findOneOption({
    Request: ById,
    Result: Schema.Struct({ one: Schema.Number }),
    execute: ({ businessId, id }) => sql`select 1 as one from make_up_reasons where business_id = ${businessId} and id = ${id}`
  })
  const serviceOfVisit = SqlSchema.findOneOption({
    Request: ById,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, id }) =>
      sql`select o.service_id as id from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          where v.business_id = ${businessId} and v.id = ${id}`
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
    Request: ById,
    Result: Schema.Struct({ one: Schema.Number }),
    execute: ({ businessId, id }) => sql`select 1 as one from make_ups where business_id = ${businessId} and visit_id = ${id}`
  })

  return {
    /** The business's reasons, in their position order. */
    reasons: (businessId: number) => reasons(businessId).pipe(Effect.orDie),

    reasonExists: (businessId: number, id: number) => reason({ businessId, id }).pipe(Effect.map(Option.isSome), Effect.orDie),

    /** The visit's service (through its occurrence), for the make-up to name. */
    serviceOfVisit: (businessId: number, visitId: number) =>
      serviceOfVisit({ businessId, id: visitId }).pipe(Effect.map(Option.map((row) => row.id)), Effect.orDie),

    /** Inserts the make-up unless the visit has one already (one per visit): None then. */
    insert: (businessId: number, makeUp: MakeUpInsert) => insert({ businessId, makeUp }).pipe(Effect.orDie),

    existsForVisit: (businessId: number, visitId: number) =>
      makeUpOfVisit({ businessId, id: visitId }).pipe(Effect.map(Option.isSome), Effect.orDie)
  }
})

export class MakeUpsRepo extends Context.Service<MakeUpsRepo, Effect.Success<typeof make>>()("studio/MakeUpsRepo") {
  static readonly layer = Layer.effect(MakeUpsRepo)(make)
}
