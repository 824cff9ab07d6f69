import { Effect, Option, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { OCCURRENCE_STATES } from "../../schedule/event-occurrences/model.ts"
import { bigintArray, IdRow, InsertRecords, insertRows } from "../../shared/sql-rows.ts"
import { orDie } from "../../shared/statements.ts"
import type { VisitState } from "./model.ts"
import { enrollVisitorsSql, Pairs } from "./waitlist-statements.ts"

/**
 * The statements admitting visits rests on, spread into VisitsRepo. The capacity rule
 * (src/enrollment/visits/capacity.ts) is built on two of these: `lockForAdmission` (row locks in id order, then
 * the places taken read in a statement of its own, so its snapshot sees what the writers it waited for committed)
 * and `insertEnrolling`. The places taken are counted by the visits' own triggers in event_occurrence_places
 * (sql/migrations/0039_count_event_occurrence_places.sql), whoever writes the visits.
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

/** A locked occurrence with what auto-pay asks of a visit on it (its business-local date: `local_date`). */
const AdmittingOccurrence = Schema.Struct({
  ...LockedOccurrence.fields,
  location_id: Schema.NullOr(Schema.Number),
  staff_member_ids: Schema.Array(Schema.Number),
  local_date: Schema.String
})
export type AdmittingOccurrence = typeof AdmittingOccurrence.Type

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

/** Per occurrence, the places its holding visits take (absent: none), and who among some people is on it. */
export interface Occupancy {
  readonly taken: ReadonlyMap<number, number>
  readonly visitors: ReadonlyArray<{ readonly occurrenceId: number; readonly personId: number }>
}

/** Occurrences locked for admitting visits, with what admitting asks of them (read after the lock). */
export interface AdmissionLock {
  readonly occurrences: ReadonlyArray<AdmittingOccurrence>
  readonly occupancy: Occupancy
  /** Of the people asked about, those unknown or deleted once their rows were locked (FOR SHARE). */
  readonly gonePeople: ReadonlySet<number>
}

const Ids = Schema.Array(Schema.Number)
const InBusiness = Schema.Struct({ businessId: Schema.Number, ids: Ids })
type InBusiness = typeof InBusiness.Type
const Visitors = Schema.Struct({ businessId: Schema.Number, occurrenceIds: Ids, personIds: Ids })

export const admitStatements = (sql: SqlClient.SqlClient) => {
  const lockOccurrences = SqlSchema.findAll({
    Request: InBusiness,
    Result: LockedOccurrence,
    execute: ({ businessId, ids }) =>
      sql`select id, service_id, event_id, state, capacity, start_at, end_at from event_occurrences
          where business_id = ${businessId} and id = any(${bigintArray([...new Set(ids)].sort((a, b) => a - b))})
          order by id for no key update`
  })
  const lockForAdmission = SqlSchema.findAll({
    Request: Visitors,
    Result: Schema.Struct({
      ...AdmittingOccurrence.fields,
      taken: Schema.Number,
      visitors: Schema.Array(Schema.Number),
      gone_people: Schema.Array(Schema.Number)
    }),
    execute: ({ businessId, occurrenceIds, personIds }) =>
      sql`select id, service_id, event_id, state, capacity, start_at, end_at, location_id, staff_member_ids, local_date, taken, visitors, gone_people
          from lock_occurrences_for_admission(${businessId}, ${bigintArray([...new Set(occurrenceIds)].sort((a, b) => a - b))}, ${bigintArray(personIds)})`
  })
  const lockOccurrenceOfVisit = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, id }) =>
      sql`select o.id from event_occurrences o
          where o.business_id = ${businessId}
            and o.id = (select v.event_occurrence_id from visits v where v.business_id = ${businessId} and v.id = ${id})
          for no key update of o`
  })
  const placesTaken = SqlSchema.findAll({
    Request: InBusiness,
    Result: Schema.Struct({ id: Schema.Number, count: Schema.Number }),
    execute: ({ businessId, ids }) =>
      sql`select event_occurrence_id as id, taken as count from event_occurrence_places
          where business_id = ${businessId} and event_occurrence_id = any(${bigintArray(ids)})`
  })
  const visitorsOf = SqlSchema.findAll({
    Request: Visitors,
    Result: Schema.Struct({ event_occurrence_id: Schema.Number, person_id: Schema.Number }),
    execute: ({ businessId, occurrenceIds, personIds }) =>
      sql`select event_occurrence_id, person_id from visits
          where business_id = ${businessId} and event_occurrence_id = any(${bigintArray(occurrenceIds)}) and person_id = any(${bigintArray(personIds)})`
  })
  const insertEnrolling = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, records: InsertRecords, pairs: Pairs, now: Schema.Date }),
    Result: IdRow,
    execute: ({ businessId, records, pairs, now }) =>
      sql`with enrolled as (${enrollVisitorsSql(sql, { businessId, pairs, now })}),
               inserted as (insert into visits ${sql.insert(records)} returning id)
          select id from inserted order by id`
  })
  return {
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
    /**
     * `lockOccurrences` and `occupancy` in one round trip (the database function
     * lock_occurrences_for_admission takes the locks, then reads in a statement of its own), and the
     * people's locks (FOR SHARE: a person's deletion waits for the admission, or the admission finds
     * the person gone).
     */
    lockForAdmission: orDie((request: typeof Visitors.Type) =>
      request.occurrenceIds.length === 0
        ? Effect.succeed<AdmissionLock>({ occurrences: [], occupancy: { taken: new Map(), visitors: [] }, gonePeople: new Set() })
        : lockForAdmission(request).pipe(Effect.map((rows): AdmissionLock => ({
          occurrences: rows.map(({ taken: _taken, visitors: _visitors, gone_people: _gone, ...occurrence }) => occurrence),
          occupancy: {
            taken: new Map(rows.map((row) => [row.id, row.taken])),
            visitors: rows.flatMap((row) => row.visitors.map((personId) => ({ occurrenceId: row.id, personId })))
          },
          gonePeople: new Set(rows[0]?.gone_people ?? [])
        })))
    ),
    /** Locks the occurrence of a visit as `lockOccurrences` does; false: no such visit. */
    lockOccurrenceOfVisit: orDie((request: { readonly businessId: number; readonly id: number }) =>
      lockOccurrenceOfVisit(request).pipe(Effect.map(Option.isSome))
    ),
    /** Places taken in each occurrence: its visits in a holding state, as their triggers counted them. Absent: none. */
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
     * Inserts visits and, in the same statement, moves their people's live waitlist entries on
     * those occurrences to `enrolled`; returns the visit ids in the order given.
     */
    insertEnrolling: orDie(({ businessId, visits, now }: { readonly businessId: number; readonly visits: ReadonlyArray<VisitInsert>; readonly now: Date }) => {
      const records = insertRows(visits.map((visit) => ({ business_id: businessId, ...visit })))
      if (records === undefined) return Effect.succeed([] as ReadonlyArray<number>)
      const pairs = visits.flatMap((visit) => (visit.person_id === null ? [] : [{ occurrenceId: visit.event_occurrence_id, personId: visit.person_id }]))
      return insertEnrolling({ businessId, records, pairs, now }).pipe(Effect.map((rows): ReadonlyArray<number> => rows.map((row) => row.id)))
    })
  }
}
