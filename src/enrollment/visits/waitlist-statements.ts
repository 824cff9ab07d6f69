import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { orDie } from "../../shared/statements.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * What admitting and freeing places ask of the waitlist. They live with visits,
 * not in the waitlist's repo: waitlists builds on visits (its offer admits visits), so the
 * visits side asks them itself and the imports run one way, waitlists → visits. Live states
 * as in src/enrollment/waitlists/model.ts (LIVE_STATES).
 */
const LIVE: ReadonlyArray<string> = ["pending", "waiting"]
export const Pairs = Schema.Array(Schema.Struct({ occurrenceId: Schema.Number, personId: Schema.Number }))
const Occurrences = Schema.Struct({ businessId: Schema.Number, occurrenceIds: Schema.Array(Schema.Number) })

/**
 * Spec: creating a visit for a waitlisted person moves their live entry to `enrolled`. A
 * fragment, so the visits' insert runs it in the same statement (a data-modifying CTE).
 */
export const enrollVisitorsSql = (
  sql: SqlClient.SqlClient,
  { businessId, pairs, now }: { readonly businessId: number; readonly pairs: typeof Pairs.Type; readonly now: Date }
) =>
  sql`update waitlist_entries w set state = 'enrolled', enrolled_at = ${now}, updated_at = ${now}
      from unnest(${bigintArray(pairs.map((pair) => pair.occurrenceId))}::bigint[], ${bigintArray(pairs.map((pair) => pair.personId))}::bigint[]) as p(o, q)
      where w.business_id = ${businessId} and w.event_occurrence_id = p.o and w.person_id = p.q
        and w.state = any(${LIVE})`

export const waitlistStatements = (sql: SqlClient.SqlClient) => {
  const withWaiting = SqlSchema.findAll({
    Request: Occurrences,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, occurrenceIds }) =>
      sql`select distinct event_occurrence_id as id from waitlist_entries
          where business_id = ${businessId} and event_occurrence_id = any(${bigintArray(occurrenceIds)}) and state = 'waiting'`
  })
  return {
    /** Of the occurrences, those with someone waiting (whom a freed place is offered to). */
    withWaiting: orDie((request: typeof Occurrences.Type) =>
      request.occurrenceIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<number>)
        : withWaiting(request).pipe(Effect.map((rows): ReadonlyArray<number> => rows.map((row) => row.id)))
    )
  }
}
