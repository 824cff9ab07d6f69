import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { OCCURRENCE_STATES } from "../../schedule/event-occurrences/model.ts"
import { recipientJoin } from "../../platform/mail/recipient.ts"
import { insertRows } from "../../shared/sql-rows.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { leaseVisitsQueries } from "./lease-visits-repo.ts"
import { visitListQueries } from "./list-repo.ts"
import { EmbeddedOccurrenceRow, EmbeddedPersonRow, HOLDING_STATES, VISIT_COLUMNS, VisitRow, type VisitState } from "./model.ts"
import { VisitPayments } from "./payments.ts"
import { enrollVisitorsSql, waitlistStatements } from "./waitlist-statements.ts"

/**
 * The SQL of visits. The capacity rule (src/enrollment/visits/capacity.ts) is built on three of these:
 * `lockOccurrences` (row locks, in id order), `occupancy` (holding visits, read after the lock in
 * a statement of its own so its snapshot sees what the writers it waited for committed) and `insertEnrolling`.
 */
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
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))

/** Per occurrence, the places its holding visits take (absent: none), and who among some people is on it. */
export interface Occupancy {
  readonly taken: ReadonlyMap<number, number>
  readonly visitors: ReadonlyArray<{ readonly occurrenceId: number; readonly personId: number }>
}

/** Columns a visit update may write. */
export type VisitChange = Partial<
  Pick<VisitInsert, "person_id" | "state" | "registered_at" | "completed_at" | "noshow_at" | "cancelled_at">
>

const Ids = Schema.Array(Schema.Number)
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const InBusiness = Schema.Struct({ businessId: Schema.Number, ids: Ids })
const OfPerson = Schema.Struct({ businessId: Schema.Number, personId: Schema.Number })
const Visitors = Schema.Struct({ businessId: Schema.Number, occurrenceIds: Ids, personIds: Ids })
type InBusiness = typeof InBusiness.Type
const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const payments = yield* VisitPayments

  const lockOccurrences = SqlSchema.findAll({
    Request: InBusiness,
    Result: LockedOccurrence,
    execute: ({ businessId, ids }) =>
      sql`select id, service_id, event_id, state, capacity, start_at, end_at from event_occurrences
          where business_id = ${businessId} and id = any(${[...new Set(ids)].sort((a, b) => a - b)})
          order by id for no key update`
  })
  const placesTaken = SqlSchema.findAll({
    Request: InBusiness,
    Result: Schema.Struct({ id: Schema.Number, count: Schema.Number }),
    execute: ({ businessId, ids }) =>
      sql`select event_occurrence_id as id, count(*)::int as count from visits
          where business_id = ${businessId} and event_occurrence_id = any(${ids}) and state = any(${holding})
          group by event_occurrence_id`
  })
  const visitorsOf = SqlSchema.findAll({
    Request: Visitors,
    Result: Schema.Struct({ event_occurrence_id: Schema.Number, person_id: Schema.Number }),
    execute: ({ businessId, occurrenceIds, personIds }) =>
      sql`select event_occurrence_id, person_id from visits
          where business_id = ${businessId} and event_occurrence_id = any(${occurrenceIds}) and person_id = any(${personIds})`
  })
  const occupancy = SqlSchema.findAll({
    Request: Visitors,
    Result: Schema.Struct({ id: Schema.Number, taken: Schema.Number, visitors: Schema.Array(Schema.Number) }),
    execute: ({ businessId, occurrenceIds, personIds }) =>
      sql`select event_occurrence_id as id, (count(*) filter (where state = any(${holding})))::int as taken,
                 coalesce(array_agg(person_id::int) filter (where person_id = any(${personIds})), '{}') as visitors
          from visits
          where business_id = ${businessId} and event_occurrence_id = any(${occurrenceIds})
          group by event_occurrence_id`
  })
  const byIds = SqlSchema.findAll({
    Request: InBusiness,
    Result: VisitRow,
    execute: ({ businessId, ids }) =>
      sql`select ${sql.literal(VISIT_COLUMNS)} from visits v where v.business_id = ${businessId} and v.id = any(${ids}) order by v.id`
  })

  const embeddedOccurrences = SqlSchema.findAll({
    Request: InBusiness,
    Result: EmbeddedOccurrenceRow,
    execute: ({ businessId, ids }) =>
      sql`select o.id, o.event_id, o.name, o.service_id, o.location_id, o.start_at, o.end_at, o.time_zone, o.state
          from event_occurrences o where o.business_id = ${businessId} and o.id = any(${ids})`
  })
  const embeddedPeople = SqlSchema.findAll({
    Request: InBusiness,
    Result: EmbeddedPersonRow,
    execute: ({ businessId, ids }) =>
      sql`select p.id, p.first_name, p.last_name, p.email::text as email
          from people p where p.business_id = ${businessId} and p.id = any(${ids})`
  })

  const findForUpdate = SqlSchema.findOneOption({
    Request: ById,
    Result: VisitRow,
    execute: ({ businessId, id }) =>
      sql`select ${sql.literal(VISIT_COLUMNS)} from visits v where v.business_id = ${businessId} and v.id = ${id} for update`
  })
  const remove = SqlSchema.void({
    Request: ById,
    execute: ({ businessId, id }) => sql`delete from visits where business_id = ${businessId} and id = ${id}`
  })
  const completedByService = SqlSchema.findAll({
    Request: OfPerson,
    Result: Schema.Struct({ service_id: Schema.Number, name: Schema.String, first_at: Schema.Date, last_at: Schema.Date, count: Schema.Number }),
    execute: ({ businessId, personId }) =>
      sql`select s.id as service_id, s.name, min(o.start_at) as first_at, max(o.start_at) as last_at, count(*)::int as count
          from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          join services s on s.business_id = o.business_id and s.id = o.service_id
          where v.business_id = ${businessId} and v.person_id = ${personId} and v.state = 'completed'
          group by s.id, s.name order by min(o.start_at), s.id`
  })
  const FutureOf = Schema.Struct({ ...OfPerson.fields, now: Schema.Date })
  const futureVisitCount = SqlSchema.findOne({
    Request: FutureOf,
    Result: Schema.Struct({ count: Schema.Number }),
    execute: ({ businessId, personId, now }) =>
      sql`select count(*)::int as count from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          where v.business_id = ${businessId} and v.person_id = ${personId} and v.state = any(${holding})
            and o.start_at > ${now} and o.state in ('active', 'reserved')`
  })
  const recipient = SqlSchema.findOneOption({
    Request: OfPerson,
    Result: Schema.Struct({
      first_name: Schema.String,
      email: Schema.NullOr(Schema.String),
      provider_first_name: Schema.NullOr(Schema.String),
      via_provider: Schema.Boolean
    }),
    execute: ({ businessId, personId }) =>
      sql`select p.first_name, recipient.email, recipient.provider_first_name, recipient.provider_first_name is not null as via_provider
          from people p ${sql.literal(recipientJoin("p"))}
          where p.business_id = ${businessId} and p.id = ${personId}`
  })
  const byId = <A>(rows: ReadonlyArray<A & { readonly id: number }>) => new Map(rows.map((row) => [row.id, row]))

  return {
    ...visitListQueries(sql),
    ...leaseVisitsQueries(sql),

    /**
     * Locks the occurrences for the rest of the transaction, in id order so two writers never
     * wait on each other in a cycle, and returns them. Unknown ids are absent. FOR NO KEY
     * UPDATE: it excludes every other admitter, but not the KEY SHARE locks that inserting a
     * row referencing the occurrence takes (a lease, a visit), so a writer that inserted one
     * before calling admitVisits cannot deadlock with another doing the same.
     */
    lockOccurrences: orDie(({ businessId, ids }: InBusiness) =>
      ids.length === 0 ? Effect.succeed([] as ReadonlyArray<LockedOccurrence>) : lockOccurrences({ businessId, ids })
    ),
    /** Places taken in each occurrence: its visits in a holding state. Absent: none. */
    placesTaken: orDie(({ businessId, ids }: InBusiness) =>
      ids.length === 0
        ? Effect.succeed(new Map<number, number>() as ReadonlyMap<number, number>)
        : placesTaken({ businessId, ids }).pipe(Effect.map((rows): ReadonlyMap<number, number> => new Map(rows.map((row) => [row.id, row.count]))))
    ),
    /** Which of `personIds` have a visit (in any state) in which of the occurrences. */
    visitorsOf: orDie((request: typeof Visitors.Type) =>
      request.occurrenceIds.length === 0 || request.personIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<{ event_occurrence_id: number; person_id: number }>)
        : visitorsOf(request)
    ),
    /**
     * What admitting asks once the occurrences are locked, in one statement: the places taken
     * in each (holding visits) and which of `personIds` have a visit there (any state).
     */
    occupancy: orDie((request: typeof Visitors.Type) =>
      request.occurrenceIds.length === 0
        ? Effect.succeed<Occupancy>({ taken: new Map(), visitors: [] })
        : occupancy(request).pipe(Effect.map((rows): Occupancy => ({
          taken: new Map(rows.map((row) => [row.id, row.taken])),
          visitors: rows.flatMap((row) => row.visitors.map((personId) => ({ occurrenceId: row.id, personId })))
        })))
    ),
    /**
     * Inserts visits and, in the same statement, moves their people's live waitlist entries on
     * those occurrences to `enrolled`; returns the visit ids in the order given.
     */
    insertEnrolling: orDie(({ businessId, visits, now }: { readonly businessId: number; readonly visits: ReadonlyArray<VisitInsert>; readonly now: Date }) => {
      const records = insertRows(visits.map((visit) => ({ business_id: businessId, ...visit })))
      if (records === undefined) return Effect.succeed([] as ReadonlyArray<number>)
      const pairs = visits.flatMap((visit) => (visit.person_id === null ? [] : [{ occurrenceId: visit.event_occurrence_id, personId: visit.person_id }]))
      return sql`with enrolled as (${enrollVisitorsSql(sql, { businessId, pairs, now })}),
                      inserted as (insert into visits ${sql.insert(records)} returning id)
                 select id from inserted order by id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows): ReadonlyArray<number> => rows.map((row) => row.id))
      )
    }),
    /** Visits by id, in id order. */
    byIds: orDie((request: InBusiness) => (request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<VisitRow>) : byIds(request))),

    // ---- Records embedded in visits and waitlist entries: one query for a whole page ----

    /** The occurrences of these ids, by id. */
    embeddedOccurrences: orDie(({ businessId, ids }: InBusiness) =>
      ids.length === 0
        ? Effect.succeed(new Map<number, EmbeddedOccurrenceRow>())
        : embeddedOccurrences({ businessId, ids: [...new Set(ids)] }).pipe(Effect.map(byId))
    ),
    /** The people of these ids (deleted ones too: their visits stay), by id. */
    embeddedPeople: orDie(({ businessId, ids }: InBusiness) =>
      ids.length === 0
        ? Effect.succeed(new Map<number, EmbeddedPersonRow>())
        : embeddedPeople({ businessId, ids: [...new Set(ids)] }).pipe(Effect.map(byId))
    ),

    // ---- Reading visits (the visit and make-up endpoints) ----

    /** One visit, locked for the rest of the transaction (updates and deletes). */
    findForUpdate: orUndefined(findForUpdate),
    /** Writes the given columns of a visit (and updated_at): which columns is the caller's, so no fixed statement. */
    update: orDie(({ businessId, id, fields, now }: typeof ById.Type & { readonly fields: VisitChange; readonly now: Date }) =>
      sql`update visits set ${sql.update({ ...fields, updated_at: now })} where business_id = ${businessId} and id = ${id}`.pipe(
        Effect.asVoid
      )
    ),
    delete: orDie(remove),
    /** Completed visits of a person per service: first and last occurrence start, and how many. */
    completedByService: orDie(completedByService),
    /** How many visits of the person hold a place in an occurrence that has not started. */
    futureVisitCount: orDie((request: typeof FutureOf.Type) => futureVisitCount(request).pipe(Effect.map((row) => row.count))),
    /** Where a visit notice goes (src/platform/mail/recipient.ts). Null e-mail: nobody to tell. */
    recipient: orUndefined(recipient),

    /** What admitting and freeing places ask of the waitlist (waitlist-statements.ts). */
    waitlist: waitlistStatements(sql),

    /**
     * Billing's answers (a port: auto-pay and punches are billing's). Taken when the repo is
     * built, so every writer that admits visits has it, whatever context it runs in.
     */
    payments
  }
})

export class VisitsRepo extends Context.Service<VisitsRepo, Effect.Success<typeof make>>()("studio/VisitsRepo") {
  static readonly layer = Layer.effect(VisitsRepo)(make)
}
