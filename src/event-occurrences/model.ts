import { Schema } from "effect"
import { SERVICE_TYPES } from "../services/model.ts"
import { StaffMemberRef } from "../staff-members/model.ts"
import { Timestamp } from "../shared/schemas.ts"
import { VisitWire } from "../visits/model.ts"

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
  visits: Schema.Array(VisitWire)
}).annotate({ identifier: "EventOccurrenceDeskDetail" })
export type EventOccurrenceDeskOne = typeof EventOccurrenceDeskOne.Type

export const GROUP_BY = ["day", "hour"] as const

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
  staff: Schema.Array(Schema.Struct({ id: Schema.Number, first_name: Schema.String, last_name: Schema.String, hidden: Schema.Boolean }))
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
