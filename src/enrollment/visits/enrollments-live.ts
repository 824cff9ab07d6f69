import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Enrollments } from "../../schedule/event-occurrences/enrollments.ts"
import type { PersonRef } from "../../schedule/event-occurrences/model.ts"
import { HOLDING_STATES, VISIT_COLUMNS, VisitRow, toVisitWire } from "./model.ts"
import { VisitsRepo } from "./repo.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The `Enrollments` port of the schedule (capacity_remaining and `full`, the `full` and
 * `already_enrolled` eligibility codes, the desk roster and visits, `waitlist.full`), read from
 * visits and waitlist entries: the repo of that port, so its SQL lives here. "Enrolled" is
 * having a visit on the occurrence, in any state (one visit per person and occurrence); places
 * taken are holding visits (capacity.ts). Database failures are defects.
 */
const holding = HOLDING_STATES as ReadonlyArray<string>
const Ids = Schema.Array(Schema.Number)
const Id = Schema.Struct({ id: Schema.Number })
const Attendee = Schema.Struct({ event_occurrence_id: Schema.Number, id: Schema.Number, name: Schema.String, email: Schema.NullOr(Schema.String) })
const InEvent = Schema.Struct({ businessId: Schema.Number, eventId: Schema.Number })
const InOccurrences = Schema.Struct({ businessId: Schema.Number, occurrenceIds: Ids })
const InOccurrence = Schema.Struct({ businessId: Schema.Number, occurrenceId: Schema.Number })
const idSet = (rows: ReadonlyArray<{ readonly id: number }>): ReadonlySet<number> => new Set(rows.map((row) => row.id))

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const visits = yield* VisitsRepo

  const coursePlacesTaken = SqlSchema.findOne({
    Request: InEvent,
    Result: Schema.Struct({ count: Schema.Number }),
    execute: ({ businessId, eventId }) =>
      sql`select coalesce(max(n), 0)::int as count from (
            select count(*) as n from visits v
            join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
            where v.business_id = ${businessId} and o.event_id = ${eventId} and v.state = any(${holding})
            group by v.event_occurrence_id) s`
  })

  const enrolledInOccurrence = SqlSchema.findAll({
    Request: Schema.Struct({ ...InOccurrence.fields, personIds: Ids }),
    Result: Id,
    execute: ({ businessId, occurrenceId, personIds }) =>
      sql`select distinct person_id as id from visits
          where business_id = ${businessId} and event_occurrence_id = ${occurrenceId} and person_id = any(${bigintArray(personIds)})`
  })

  const enrolledInCourse = SqlSchema.findAll({
    Request: Schema.Struct({ ...InEvent.fields, personIds: Ids }),
    Result: Id,
    execute: ({ businessId, eventId, personIds }) =>
      sql`select distinct v.person_id as id from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          where v.business_id = ${businessId} and o.event_id = ${eventId} and v.person_id = any(${bigintArray(personIds)})`
  })

  const attendees = SqlSchema.findAll({
    Request: InOccurrences,
    Result: Attendee,
    execute: ({ businessId, occurrenceIds }) =>
      sql`select v.event_occurrence_id, p.id, concat_ws(' ', p.first_name, p.last_name) as name, p.email::text as email
          from visits v join people p on p.business_id = v.business_id and p.id = v.person_id
          where v.business_id = ${businessId} and v.event_occurrence_id = any(${bigintArray(occurrenceIds)})
          order by v.event_occurrence_id, v.created_at, v.id`
  })

  const eventAttendees = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, eventIds: Ids, personIds: Schema.NullOr(Ids) }),
    Result: Schema.Struct({ event_id: Schema.Number, id: Schema.Number, name: Schema.String, email: Schema.NullOr(Schema.String) }),
    execute: ({ businessId, eventIds, personIds }) =>
      sql`select o.event_id, p.id, concat_ws(' ', p.first_name, p.last_name) as name, p.email::text as email
          from visits v
          join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
          join people p on p.business_id = v.business_id and p.id = v.person_id and p.deleted_at is null
          where v.business_id = ${businessId} and o.event_id = any(${bigintArray(eventIds)})
            ${personIds === null ? sql`` : sql`and v.person_id = any(${bigintArray(personIds)})`}
          group by o.event_id, p.id, p.first_name, p.last_name, p.email
          order by o.event_id, min(v.created_at), p.id`
  })

  const visitsOf = SqlSchema.findAll({
    Request: InOccurrence,
    Result: VisitRow,
    execute: ({ businessId, occurrenceId }) =>
      sql`select ${sql.literal(VISIT_COLUMNS)} from visits v
          where v.business_id = ${businessId} and v.event_occurrence_id = ${occurrenceId} order by v.created_at, v.id`
  })

  const waitlistFull = SqlSchema.findAll({
    Request: InOccurrences,
    Result: Id,
    execute: ({ businessId, occurrenceIds }) =>
      sql`select o.id from event_occurrences o
          join services s on s.business_id = o.business_id and s.id = o.service_id
          where o.business_id = ${businessId} and o.id = any(${bigintArray(occurrenceIds)}) and s.waitlist_capacity is not null
            and (select count(*) from waitlist_entries w
                 where w.business_id = o.business_id and w.event_occurrence_id = o.id and w.state in ('waiting', 'pending'))
                >= s.waitlist_capacity`
  })

  return Enrollments.of({
    placesTaken: (businessId, occurrenceIds) => visits.placesTaken({ businessId, ids: occurrenceIds }),

    coursePlacesTaken: (businessId, eventId) =>
      coursePlacesTaken({ businessId, eventId }).pipe(Effect.map((row) => row.count), Effect.orDie),

    enrolledInOccurrence: (businessId, occurrenceId, personIds) =>
      personIds.length === 0
        ? Effect.succeed(new Set())
        : enrolledInOccurrence({ businessId, occurrenceId, personIds }).pipe(Effect.map(idSet), Effect.orDie),

    enrolledInCourse: (businessId, eventId, personIds) =>
      personIds.length === 0
        ? Effect.succeed(new Set())
        : enrolledInCourse({ businessId, eventId, personIds }).pipe(Effect.map(idSet), Effect.orDie),

    attendees: (businessId, occurrenceIds) =>
      occurrenceIds.length === 0
        ? Effect.succeed(new Map())
        : attendees({ businessId, occurrenceIds }).pipe(
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

    eventAttendees: (businessId, eventIds, personIds) =>
      eventIds.length === 0 || (personIds !== null && personIds.length === 0)
        ? Effect.succeed(new Map())
        : eventAttendees({ businessId, eventIds, personIds }).pipe(
          Effect.map((rows) => {
            const byEvent = new Map<number, Array<PersonRef>>()
            for (const row of rows) {
              const list = byEvent.get(row.event_id) ?? []
              list.push({ id: row.id, name: row.name, email: row.email })
              byEvent.set(row.event_id, list)
            }
            return byEvent as ReadonlyMap<number, ReadonlyArray<PersonRef>>
          }),
          Effect.orDie
        ),

    visits: (businessId, occurrenceId) =>
      visitsOf({ businessId, occurrenceId }).pipe(Effect.map((rows) => rows.map(toVisitWire)), Effect.orDie),

    waitlistFull: (businessId, occurrenceIds) =>
      occurrenceIds.length === 0
        ? Effect.succeed(new Set())
        : waitlistFull({ businessId, occurrenceIds }).pipe(Effect.map(idSet), Effect.orDie)
  })
})

export const EnrollmentsLive = Layer.effect(Enrollments)(make)
