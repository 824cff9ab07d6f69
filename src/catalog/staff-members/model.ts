import { Schema } from "effect"
import { STAFF_ROLES } from "../../access/tokens.ts"

/**
 * Staff members as clients and staff see them (compatibility notes, "staff_member"). Names
 * and contact details live on the staff member's person.
 */
export const ProfilePhoto = Schema.NullOr(
  Schema.Struct({ x50: Schema.String, x50_2x: Schema.String, x75: Schema.String, x75_2x: Schema.String, full: Schema.String })
)

export const StaffMemberFront = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  first_name: Schema.String,
  middle_name: Schema.NullOr(Schema.String),
  last_name: Schema.String,
  bio: Schema.NullOr(Schema.String),
  profile_photo: ProfilePhoto
}).annotate({ identifier: "StaffMemberFront" })

export const StaffMemberDesk = Schema.Struct({
  ...StaffMemberFront.fields,
  phone: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  role: Schema.Literals(STAFF_ROLES),
  person_id: Schema.Int,
  hidden_in_client_mode: Schema.Boolean
}).annotate({ identifier: "StaffMemberDesk" })
export type StaffMemberDesk = typeof StaffMemberDesk.Type

export const StaffMemberRow = Schema.Struct({
  id: Schema.Number,
  person_id: Schema.Number,
  role: Schema.Literals(STAFF_ROLES),
  bio: Schema.NullOr(Schema.String),
  hidden_in_client_mode: Schema.Boolean,
  first_name: Schema.String,
  middle_name: Schema.NullOr(Schema.String),
  last_name: Schema.String,
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  profile_photo_url: Schema.NullOr(Schema.String)
})
export type StaffMemberRow = typeof StaffMemberRow.Type

/** A staff member as the schedule's records show it: `{id, name}`. */
export const StaffMemberRef = Schema.Struct({ id: Schema.Int, name: Schema.String }).annotate({ identifier: "StaffMemberRef" })
export type StaffMemberRef = typeof StaffMemberRef.Type

/** A staff member as the schedule's rows carry them (`staffRefsSql`): enough for a ref and client mode. */
export const StaffRefRow = Schema.Struct({ id: Schema.Number, first_name: Schema.String, last_name: Schema.String, hidden: Schema.Boolean })
export type StaffRefRow = typeof StaffRefRow.Type

/** Weekly appointment hours at a location (local wall-clock times, `HH:MM`). */
export interface WorkingHoursInsert {
  readonly staff_member_id: number
  readonly location_id: number
  /** 0 = Sunday .. 6 = Saturday */
  readonly weekday: number
  readonly start_time: string
  readonly end_time: string
}
