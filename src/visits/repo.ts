import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { OCCURRENCE_STATES } from "../event-occurrences/model.ts"
import { insertRows } from "../shared/sql-rows.ts"
import { HOLDING_STATES, VISIT_COLUMNS, VisitRow, type VisitState } from "./model.ts"

/**
 * The SQL of visits. The capacity rule (src/visits/capacity.ts) is built on three of these:
 * `lockOccurrences` (row locks, in id order), `placesTaken` (holding visits) and `insert`.
 */
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(VisitRow))
const LockedOccurrence = Schema.Struct({
  id: Schema.Number,
  service_id: Schema.Number,
  event_id: Schema.NullOr(Schema.Number),
  state: Schema.Literals(OCCURRENCE_STATES),
  capacity: Schema.NullOr(Schema.Number),
  start_at: Schema.Date,
  end_at: Schema.Date
})
export type LockedOccurrence = typeof LockedOccurrence.Type
const decodeLocked = Schema.decodeUnknownEffect(Schema.Array(LockedOccurrence))
const decodeCounts = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number, count: Schema.Number })))
const decodePairs = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ event_occurrence_id: Schema.Number, person_id: Schema.Number }))
)
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))

export interface VisitInsert {
  readonly event_occurrence_id: number
  readonly person_id: number | null
  readonly state: VisitState
  readonly booking_id: number | null
  readonly lease_id: number | null
  readonly notify_client: boolean
  readonly created_by_staff_member_id: number | null
  readonly registered_at: Date | null
  readonly completed_at: Date | null
  readonly noshow_at: Date | null
  readonly cancelled_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

const holding = HOLDING_STATES as ReadonlyArray<string>

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    /**
     * Locks the occurrences (FOR UPDATE, in id order so two writers never wait on each other
     * in a cycle) for the rest of the transaction, and returns them. Unknown ids are absent.
     */
    lockOccurrences: (businessId: number, ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.succeed([] as ReadonlyArray<LockedOccurrence>)
        : sql`select id, service_id, event_id, state, capacity, start_at, end_at from event_occurrences
              where business_id = ${businessId} and id = any(${[...new Set(ids)].sort((a, b) => a - b)})
              order by id for update`.pipe(Effect.flatMap(decodeLocked), Effect.orDie),

    /** Places taken in each occurrence: its visits in a holding state. Absent: none. */
    placesTaken: (businessId: number, ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.succeed(new Map<number, number>() as ReadonlyMap<number, number>)
        : sql`select event_occurrence_id as id, count(*)::int as count from visits
              where business_id = ${businessId} and event_occurrence_id = any(${ids}) and state = any(${holding})
              group by event_occurrence_id`.pipe(
          Effect.flatMap(decodeCounts),
          Effect.map((rows): ReadonlyMap<number, number> => new Map(rows.map((row) => [row.id, row.count]))),
          Effect.orDie
        ),

    /** Which of `personIds` have a visit (in any state) in which of the occurrences. */
    visitorsOf: (businessId: number, occurrenceIds: ReadonlyArray<number>, personIds: ReadonlyArray<number>) =>
      occurrenceIds.length === 0 || personIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<{ event_occurrence_id: number; person_id: number }>)
        : sql`select event_occurrence_id, person_id from visits
              where business_id = ${businessId} and event_occurrence_id = any(${occurrenceIds}) and person_id = any(${personIds})`.pipe(
          Effect.flatMap(decodePairs),
          Effect.orDie
        ),

    /** Inserts visits; returns their ids in the order given. */
    insert: (businessId: number, visits: ReadonlyArray<VisitInsert>) => {
      const rows = insertRows(visits.map((visit) => ({ business_id: businessId, ...visit })))
      return rows === undefined
        ? Effect.succeed([] as ReadonlyArray<number>)
        : sql`insert into visits ${sql.insert(rows)} returning id`.pipe(
          Effect.flatMap(decodeIds),
          Effect.map((ids) => ids.map((row) => row.id)),
          Effect.orDie
        )
    },

    /** Visits by id, in id order. */
    byIds: (businessId: number, ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.succeed([] as ReadonlyArray<VisitRow>)
        : sql`select ${sql.literal(VISIT_COLUMNS)} from visits v where v.business_id = ${businessId} and v.id = any(${ids}) order by v.id`.pipe(
          Effect.flatMap(decodeRows),
          Effect.orDie
        ),

    /** Spec: creating a visit for a waitlisted person moves their entry to `enrolled`. */
    enrollWaitlisted: (businessId: number, pairs: ReadonlyArray<{ readonly occurrenceId: number; readonly personId: number }>, now: Date) =>
      pairs.length === 0
        ? Effect.void
        : sql`update waitlist_entries w set state = 'enrolled', enrolled_at = ${now}, updated_at = ${now}
              from unnest(${pairs.map((pair) => pair.occurrenceId)}::bigint[], ${pairs.map((pair) => pair.personId)}::bigint[]) as p(o, q)
              where w.business_id = ${businessId} and w.event_occurrence_id = p.o and w.person_id = p.q
                and w.state in ('waiting', 'pending')`.pipe(Effect.asVoid, Effect.orDie),

    /** Of the occurrences, those with someone waiting on their waitlist. */
    withWaitingEntries: (businessId: number, occurrenceIds: ReadonlyArray<number>) =>
      occurrenceIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<number>)
        : sql`select distinct event_occurrence_id as id from waitlist_entries
              where business_id = ${businessId} and event_occurrence_id = any(${occurrenceIds}) and state = 'waiting'`.pipe(
          Effect.flatMap(decodeIds),
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        )
  }
})

export class VisitsRepo extends Context.Service<VisitsRepo, Effect.Success<typeof make>>()("studio/VisitsRepo") {
  static readonly layer = Layer.effect(VisitsRepo)(make)
}
