import { Schema } from "effect"
import { PersonRef } from "../event-occurrences/model.ts"
import { StaffMemberRef, StaffRefRow } from "../../catalog/staff-members/model.ts"
import { IdListFromString, Timestamp, TimestampInput } from "../../shared/schemas.ts"
import { WEEKDAYS } from "../../shared/zoned-time.ts"

/**
 * Events: the schedule of a group class or course (spec, vocabulary). The public API's event
 * record has id, name, service_id, start_time, end_time, created_at, updated_at; the shape
 * of the recurrence is ours (compatibility notes): `recurrence` below.
 */
export const FREQUENCIES = ["once", "weekly"] as const
export type Frequency = (typeof FREQUENCIES)[number]

export const Recurrence = Schema.Struct({
  frequency: Schema.Literals(FREQUENCIES).annotate({ description: "once: a single session on start_date; weekly: on `days`" }),
  days: Schema.Array(Schema.Literals(WEEKDAYS)).annotate({ description: "Weekly: the days of the week, sunday first" }),
  interval_weeks: Schema.Int.annotate({ description: "Weekly: every this many weeks, counted from the week (Sunday to Saturday) of start_date" }),
  start_date: Schema.String.annotate({ description: "First possible date, YYYY-MM-DD (local)" }),
  end_date: Schema.NullOr(Schema.String).annotate({ description: "Last possible date, YYYY-MM-DD; null: no end date" }),
  session_count: Schema.NullOr(Schema.Int).annotate({ description: "A fixed run of this many sessions (courses); null: not limited by count" }),
  local_start_time: Schema.String.annotate({ description: "Wall-clock start at the location, HH:MM" }),
  local_end_time: Schema.String.annotate({ description: "Wall-clock end, HH:MM; earlier than the start: the next day" })
}).annotate({ identifier: "Recurrence" })
export type Recurrence = typeof Recurrence.Type

export const EventWire = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  service_id: Schema.Int,
  location_id: Schema.NullOr(Schema.Int),
  start_time: Timestamp.annotate({ description: "Start of the first session (UTC)" }),
  end_time: Schema.NullOr(Timestamp).annotate({ description: "End of the last session (UTC); null for a schedule without end" }),
  timezone: Schema.String.annotate({ description: "IANA time zone of the wall-clock times (the location's, else the business's)" }),
  capacity: Schema.NullOr(Schema.Int).annotate({ description: "Places per session; null: unlimited" }),
  staff_members: Schema.Array(StaffMemberRef),
  recurrence: Recurrence,
  attendees: Schema.Array(PersonRef).annotate({
    description: "People with a visit on any of its sessions, by first visit: everyone in staff mode; the caller and their dependents in client mode"
  }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "Event" })
export type EventWire = typeof EventWire.Type

export const EventListQuery = Schema.Struct({
  from: Schema.optional(TimestampInput),
  to: Schema.optional(TimestampInput.annotate({ description: "At most 120 days after `from` when `from` is given" })),
  ids: Schema.optional(IdListFromString),
  service_ids: Schema.optional(IdListFromString)
})
export type EventListQuery = typeof EventListQuery.Type

/** A row of `events` joined with what its wire shape and the materializer need. */
export const EventRow = Schema.Struct({
  id: Schema.Number,
  service_id: Schema.Number,
  service_type: Schema.String,
  location_id: Schema.NullOr(Schema.Number),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  frequency: Schema.Literals(FREQUENCIES),
  weekdays: Schema.Array(Schema.Number),
  interval_weeks: Schema.Number,
  start_date: Schema.String,
  end_date: Schema.NullOr(Schema.String),
  session_count: Schema.NullOr(Schema.Number),
  start_time: Schema.String,
  end_time: Schema.String,
  capacity: Schema.NullOr(Schema.Number),
  time_zone: Schema.String,
  materialized_through: Schema.NullOr(Schema.String),
  deleted_at: Schema.NullOr(Schema.Date),
  staff: Schema.Array(StaffRefRow),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type EventRow = typeof EventRow.Type

/** What creating or replacing an event takes (the import, tests). */
export const EventInput = Schema.Struct({
  service_id: Schema.Number,
  location_id: Schema.NullOr(Schema.Number),
  name: Schema.String,
  description: Schema.optional(Schema.NullOr(Schema.String)),
  frequency: Schema.Literals(FREQUENCIES),
  /** 0 = Sunday .. 6 = Saturday; weekly only. */
  weekdays: Schema.Array(Schema.Number),
  interval_weeks: Schema.optional(Schema.Number),
  start_date: Schema.String,
  end_date: Schema.optional(Schema.NullOr(Schema.String)),
  session_count: Schema.optional(Schema.NullOr(Schema.Number)),
  /** `HH:MM`, local */
  start_time: Schema.String,
  end_time: Schema.String,
  capacity: Schema.optional(Schema.NullOr(Schema.Number)),
  staff_member_ids: Schema.Array(Schema.Number)
})
export type EventInput = typeof EventInput.Type
