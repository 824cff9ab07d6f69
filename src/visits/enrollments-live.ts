import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Enrollments, type EnrollmentsShape } from "../event-occurrences/enrollments.ts"
import type { PersonRef } from "../event-occurrences/model.ts"
import { HOLDING_STATES, VISIT_COLUMNS, VisitRow, toVisitWire } from "./model.ts"
import { VisitsRepo } from "./repo.ts"

/**
 * What the schedule asks of enrollment (capacity_remaining and `full`, the `full` and
 * `already_enrolled` eligibility codes, the desk roster and visits, `waitlist.full`), read from
 * visits and waitlist entries. "Enrolled" is having a visit on the occurrence, in any state
 * (one visit per person and occurrence); places taken are holding visits (capacity.ts).
 */
const holding = HOLDING_STATES as ReadonlyArray<string>
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Number })))
const decodeCount = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ count: Schema.Number })))
const decodeAttendees = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ event_occurrence_id: Schema.Number, id: Schema.Number, name: Schema.String, email: Schema.NullOr(Schema.String) }))
)
const decodeVisits = Schema.decodeUnknownEffect(Schema.Array(VisitRow))

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const visits = yield* VisitsRepo
  const ids = (rows: ReadonlyArray<{ readonly id: number }>): ReadonlySet<number> => new Set(rows.map((row) => row.id))
  const shape: EnrollmentsShape = {
    placesTaken: (businessId, occurrenceIds) => visits.placesTaken(businessId, occurrenceIds),

    coursePlacesTaken: (businessId, eventId) =>
      sql`select coalesce(max(n), 0)::int as count from (
            select count(*) as n from visits v
            join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
            where v.business_id = ${businessId} and o.event_id = ${eventId} and v.state = any(${holding})
            group by v.event_occurrence_id) s`.pipe(
        Effect.flatMap(decodeCount),
        Effect.map((rows) => rows[0]?.count ?? 0),
        Effect.orDie
      ),

    enrolledInOccurrence: (businessId, occurrenceId, personIds) =>
      personIds.length === 0
        ? Effect.succeed(new Set())
        : sql`select distinct person_id as id from visits
              where business_id = ${businessId} and event_occurrence_id = ${occurrenceId} and person_id = any(${personIds})`.pipe(
          Effect.flatMap(decodeIds),
          Effect.map(ids),
          Effect.orDie
        ),

    enrolledInCourse: (businessId, eventId, personIds) =>
      personIds.length === 0
        ? Effect.succeed(new Set())
        : sql`select distinct v.person_id as id from visits v
              join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
              where v.business_id = ${businessId} and o.event_id = ${eventId} and v.person_id = any(${personIds})`.pipe(
          Effect.flatMap(decodeIds),
          Effect.map(ids),
          Effect.orDie
        ),

    attendees: (businessId, occurrenceIds) =>
      occurrenceIds.length === 0
        ? Effect.succeed(new Map())
        : sql`select v.event_occurrence_id, p.id, concat_ws(' ', p.first_name, p.last_name) as name, p.email::text as email
              from visits v join people p on p.business_id = v.business_id and p.id = v.person_id
              where v.business_id = ${businessId} and v.event_occurrence_id = any(${occurrenceIds})
              order by v.event_occurrence_id, v.created_at, v.id`.pipe(
          Effect.flatMap(decodeAttendees),
          Effect.map((rows) => {
            const byOccurrence = new Map<number, Array<PersonRef>>()
            for (const row of rows) {
              const list = byOccurrence.get(row.event_occurrence_id) ?? []
              list.push({ id: row.id, name: row.name, email: row.email })
              byOccurrence.set(row.event_occurrence_id, list)
            }
            return byOccurrence as ReadonlyMap<number, ReadonlyArray<PersonRef>>
          }),
          Effect.orDie
        ),

    visits: (businessId, occurrenceId) =>
      sql`select ${sql.literal(VISIT_COLUMNS)} from visits v
          where v.business_id = ${businessId} and v.event_occurrence_id = ${occurrenceId} order by v.created_at, v.id`.pipe(
        Effect.flatMap(decodeVisits),
        Effect.map((rows) => rows.map(toVisitWire)),
        Effect.orDie
      ),

    waitlistFull: (businessId, occurrenceIds) =>
      occurrenceIds.length === 0
        ? Effect.succeed(new Set())
        : sql`select o.id from event_occurrences o
              join services s on s.business_id = o.business_id and s.id = o.service_id
              where o.business_id = ${businessId} and o.id = any(${occurrenceIds}) and s.waitlist_capacity is not null
                and (select count(*) from waitlist_entries w
                     where w.business_id = o.business_id and w.event_occurrence_id = o.id and w.state in ('waiting', 'pending'))
                    >= s.waitlist_capacity`.pipe(Effect.flatMap(decodeIds), Effect.map(ids), Effect.orDie)
  }
  return shape
})

/** Replaces the "nobody enrolled yet" default of the Enrollments reference. */
export const EnrollmentsLive = Layer.effect(Enrollments)(make)
