import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { EligibilityPersonRow } from "./model.ts"

/** The SQL eligibility reads: the people checked, dependents, and an event's next session. */
const decodePeople = Schema.decodeUnknownEffect(Schema.Array(EligibilityPersonRow))
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))
const decodeSessions = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ start_at: Schema.Date, end_at: Schema.Date })))

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    /** Live people among `ids` (unknown ids are skipped), in id order. */
    people: (businessId: number, ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.succeed([] as ReadonlyArray<EligibilityPersonRow>)
        : sql`select id, is_member from people
              where business_id = ${businessId} and id = any(${ids}) and deleted_at is null order by id`.pipe(
          Effect.flatMap(decodePeople),
          Effect.orDie
        ),

    /** The live dependents of a person, by id. */
    dependents: (businessId: number, providerId: number) =>
      sql`select p.id from person_relationships r
          join people p on p.business_id = r.business_id and p.id = r.dependent_id
          where r.business_id = ${businessId} and r.provider_id = ${providerId} and p.deleted_at is null
          order by p.id`.pipe(Effect.flatMap(decodeIds), Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie),

    /** The event's next session that has not ended (active or held), if any. */
    nextSession: (businessId: number, eventId: number, now: Date) =>
      sql`select start_at, end_at from event_occurrences
          where business_id = ${businessId} and event_id = ${eventId} and state in ('active', 'reserved') and end_at > ${now}
          order by start_at limit 1`.pipe(Effect.flatMap(decodeSessions), Effect.map((rows) => rows[0]), Effect.orDie)
  }
})

export class EligibilityRepo extends Context.Service<EligibilityRepo, Effect.Success<typeof make>>()("studio/EligibilityRepo") {
  static readonly layer = Layer.effect(EligibilityRepo)(make)
}
