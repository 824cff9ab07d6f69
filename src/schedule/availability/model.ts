import { Schema } from "effect"
import { Timestamp } from "../../shared/schemas.ts"
import { isCalendarDate } from "../../shared/zoned-time.ts"

/**
 * Appointment availability: the times an appointment service can be booked, from the staff
 * members who give it, their weekly hours at each location, and what they already have on
 * their schedule (appointments, classes they teach).
 */
export const CalendarDate = Schema.String.annotate({ description: "Date, YYYY-MM-DD" }).check(
  Schema.makeFilter((s: string) => isCalendarDate(s), { messageKey: "field_must_be_date" })
)

export const AvailableSlot = Schema.Struct({
  start_at: Timestamp,
  end_at: Timestamp,
  service_id: Schema.Int,
  staff_member_id: Schema.Int,
  location_id: Schema.Int
}).annotate({ identifier: "AvailableSlot" })
export type AvailableSlot = typeof AvailableSlot.Type

/** The summary is a bare object (no root key), as the public API answers: date → score. */
export const AvailabilitySummary = Schema.Record(Schema.String, Schema.Number).annotate({
  identifier: "AvailabilitySummary",
  description: "Score per day (YYYY-MM-DD): the day's available slots as a fraction of the day with the most (1); none for past days",
  examples: [{ "2026-11-23": 1, "2026-11-24": 0.5, "2026-11-25": 0 }]
})

export const ProviderRow = Schema.Struct({ id: Schema.Number })

export const WorkingHoursRow = Schema.Struct({
  staff_member_id: Schema.Number,
  location_id: Schema.Number,
  weekday: Schema.Number,
  start_time: Schema.String,
  end_time: Schema.String,
  time_zone: Schema.String
})
export type WorkingHoursRow = typeof WorkingHoursRow.Type

export const BusyRow = Schema.Struct({ staff_member_id: Schema.Number, start_at: Schema.Date, end_at: Schema.Date })
export type BusyRow = typeof BusyRow.Type
