import { Schema } from "effect"

/** A location as client mode sees it (compatibility notes, "location"). */
export const LocationFront = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  address: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(Schema.Number),
  longitude: Schema.NullOr(Schema.Number),
  phone: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  timezone_friendly: Schema.String.annotate({ description: "The time zone's name in the request's locale" }),
  timezone: Schema.String.annotate({ description: "IANA time zone, e.g. America/Los_Angeles" })
}).annotate({ identifier: "LocationFront" })

/** Staff mode adds whether clients see the location, and its slug. */
export const LocationDesk = Schema.Struct({
  ...LocationFront.fields,
  show_in_client_mode: Schema.Boolean,
  slug: Schema.String
}).annotate({ identifier: "LocationDesk" })

export type LocationDesk = typeof LocationDesk.Type

/** A row of the `locations` table as the repo reads it. */
export const LocationRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  slug: Schema.String,
  address: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(Schema.Number),
  longitude: Schema.NullOr(Schema.Number),
  phone: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  time_zone: Schema.String,
  show_in_client_mode: Schema.Boolean
})
export type LocationRow = typeof LocationRow.Type
