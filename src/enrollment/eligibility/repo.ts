import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { EligibilityPersonRow } from "./model.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/** The SQL eligibility reads: the people checked and an event's next session. */
const InBusiness = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number) })

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const people = SqlSchema.findAll({
    Request: InBusiness,
    Result: EligibilityPersonRow,
    execute: ({ businessId, ids }) =>
      sql`select id from people
          where business_id = ${businessId} and id = any(${bigintArray(ids)}) and deleted_at is null order by id`
  })

  const nextSession = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, eventId: Schema.Number, now: Schema.Date }),
    Result: Schema.Struct({ start_at: Schema.Date, end_at: Schema.Date }),
    execute: ({ businessId, eventId, now }) =>
      sql`select start_at, end_at from event_occurrences
          where business_id = ${businessId} and event_id = ${eventId} and state in ('active', 'reserved') and end_at > ${now}
          order by start_at limit 1`
  })

  return {
    /** Live people among `ids` (unknown ids are skipped), in id order. */
    people: orDie((request: typeof InBusiness.Type) =>
      request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<EligibilityPersonRow>) : people(request)
    ),

    /** The event's next session that has not ended (active or held), if any. */
    nextSession: orUndefined(nextSession)
  }
})

export class EligibilityRepo extends Context.Service<EligibilityRepo, Effect.Success<typeof make>>()("studio/EligibilityRepo") {
  static readonly layer = Layer.effect(EligibilityRepo)(make)
}
