import { Schema } from "effect"
import { SERVICE_TYPES, type ServiceType } from "../../catalog/services/model.ts"
import { StaffMemberRef, StaffRefRow } from "../../catalog/staff-members/model.ts"
import { IdListFromString, Timestamp, TimestampInput, ValuesFromString } from "../../shared/schemas.ts"

/**
 * Event occurrences: one scheduled instance of a service (a class session, a course session,
 * an appointment). Wire fields follow the compatibility notes ("event_occurrence").
 */
export const OCCURRENCE_STATES = ["active", "canceled", "reserved", "deleted"] as const
export type OccurrenceState = (typeof OCCURRENCE_STATES)[number]

export const PersonRef = Schema.Struct({ id: Schema.Int, name: Schema.String, email: Schema.NullOr(Schema.String) }).annotate({
  identifier: "EventOccurrencePerson"
})
export type PersonRef = typeof PersonRef.Type

/**
 * A visit on an occurrence's roster (staff mode `:id`), as the schedule shows it: the shape the
 * `Enrollments` port answers with (enrollments.ts), so the schedule needs nothing from visits.
 */
export const RosterVisit = Schema.Struct({
  id: Schema.Int,
  person_id: Schema.NullOr(Schema.Int),
  state: Schema.Literals(["reserved", "registered", "completed", "noshowed", "late_canceled"]),
  event_occurrence_id: Schema.Int,
  registered_at: Schema.NullOr(Timestamp).annotate({ description: "When the registration completed" }),
  completed_at: Schema.NullOr(Timestamp).annotate({ description: "Marked complete by staff" }),
  noshow_at: Schema.NullOr(Timestamp).annotate({ description: "Marked no-show" }),
  cancelled_at: Schema.NullOr(Timestamp).annotate({ description: "Marked late cancel" }),
  created_at: Timestamp,
  paid: Schema.Boolean,
  paid_for_by: Schema.NullOr(Schema.String).annotate({ description: "The plan that paid (billing)" }),
  punch_id: Schema.NullOr(Schema.Int)
}).annotate({ identifier: "EventOccurrenceVisit" })
export type RosterVisit = typeof RosterVisit.Type

export const EventOccurrenceFront = Schema.Struct({
  id: Schema.Int,
  event_id: Schema.NullOr(Schema.Int).annotate({ description: "null for an appointment" }),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  service_id: Schema.Int,
  service_type: Schema.Literals(SERVICE_TYPES),
  location_id: Schema.NullOr(Schema.Int),
  start_at: Timestamp,
  end_at: Timestamp,
  url: Schema.String,
  timezone: Schema.String.annotate({ description: "IANA time zone of the occurrence (its location's, else the business's)" }),
  state: Schema.Literals(OCCURRENCE_STATES),
  full: Schema.Boolean,
  capacity_remaining: Schema.NullOr(Schema.Int).annotate({ description: "Places left; null: unlimited" }),
  staff_members: Schema.Array(StaffMemberRef),
  waitlist: Schema.Struct({ full: Schema.Boolean })
}).annotate({ identifier: "EventOccurrenceFront" })

export const EventOccurrenceDesk = Schema.Struct({
  ...EventOccurrenceFront.fields,
  attendance_complete: Schema.Boolean,
  updating: Schema.Boolean.annotate({
    description: "A change to the occurrence's event is still being applied to its occurrences; it may still move or be removed"
  }),
  visits_count: Schema.Int,
  people: Schema.Array(PersonRef)
}).annotate({ identifier: "EventOccurrenceDesk" })
export type EventOccurrenceDesk = typeof EventOccurrenceDesk.Type

export const EventOccurrenceDeskOne = Schema.Struct({
  ...EventOccurrenceDesk.fields,
  visits: Schema.Array(RosterVisit)
}).annotate({ identifier: "EventOccurrenceDeskDetail" })
export type EventOccurrenceDeskOne = typeof EventOccurrenceDeskOne.Type

export const GROUP_BY = ["day", "hour"] as const

/** Client mode lists and counts courses and group classes only. */
export const FRONT_SERVICE_TYPES = ["Course", "GroupClass"] as const

const filters = {
  from: Schema.optional(TimestampInput.annotate({ description: "Default: the start of today in the business's time zone" })),
  to: Schema.optional(TimestampInput.annotate({ description: "Default: the end of `from`'s day (today) in the business's time zone" })),
  state: Schema.optional(
    ValuesFromString(OCCURRENCE_STATES, ["active"], "Comma-delimited among active, canceled, reserved, deleted (default active)")
  ),
  staff_member_ids: Schema.optional(IdListFromString),
  service_ids: Schema.optional(IdListFromString),
  location_ids: Schema.optional(IdListFromString)
}

export const OccurrenceListQuery = Schema.Struct({
  ...filters,
  ids: Schema.optional(
    IdListFromString.annotate({ description: "Only these occurrences (unknown ids are no error); without from and to, whatever their day" })
  ),
  event_ids: Schema.optional(IdListFromString)
})
export type OccurrenceListQuery = typeof OccurrenceListQuery.Type

const summaryQuery = <const V extends ServiceType>(serviceTypes: ReadonlyArray<V>) =>
  Schema.Struct({
    ...filters,
    group_by: Schema.optional(Schema.Literals(GROUP_BY).annotate({ description: "day (default) or hour" })),
    service_types: Schema.optional(ValuesFromString(serviceTypes, serviceTypes, "Comma-delimited service types"))
  })

export const OccurrenceSummaryQueryFront = summaryQuery(FRONT_SERVICE_TYPES)
export const OccurrenceSummaryQueryDesk = summaryQuery(SERVICE_TYPES)
export type OccurrenceSummaryQuery = typeof OccurrenceSummaryQueryDesk.Type

export const OccurrenceSummary = Schema.Struct({
  date: Schema.String.annotate({ description: "Local date (business time zone), YYYY-MM-DD" }),
  hour: Schema.NullOr(Schema.Int).annotate({ description: "Local hour 0-23 with group_by=hour; null with group_by=day" }),
  start_at: Timestamp.annotate({ description: "Start of the day or hour (UTC)" }),
  count: Schema.Int
}).annotate({ identifier: "EventOccurrenceSummary" })
export type OccurrenceSummary = typeof OccurrenceSummary.Type

export const OccurrenceRow = Schema.Struct({
  id: Schema.Number,
  event_id: Schema.NullOr(Schema.Number),
  scheduled_date: Schema.NullOr(Schema.String),
  service_id: Schema.Number,
  service_type: Schema.Literals(SERVICE_TYPES),
  location_id: Schema.NullOr(Schema.Number),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  start_at: Schema.Date,
  end_at: Schema.Date,
  time_zone: Schema.String,
  state: Schema.Literals(OCCURRENCE_STATES),
  capacity: Schema.NullOr(Schema.Number),
  booked_for_person_id: Schema.NullOr(Schema.Number),
  attendance_complete: Schema.Boolean,
  updating: Schema.Boolean,
  staff: Schema.Array(StaffRefRow)
})
export type OccurrenceRow = typeof OccurrenceRow.Type

/** An occurrence to insert: materialized from an event, or an appointment. */
export interface OccurrenceInsert {
  readonly event_id: number | null
  readonly scheduled_date: string | null
  readonly service_id: number
  readonly location_id: number | null
  readonly name: string
  readonly description: string | null
  readonly start_at: Date
  readonly end_at: Date
  readonly time_zone: string
  readonly state: OccurrenceState
  readonly capacity: number | null
  readonly booked_for_person_id: number | null
  readonly staff_member_ids: ReadonlyArray<number>
}
