import { Schema } from "effect"
import { PageQuery } from "../../shared/pagination.ts"
import { IdFromString, IntInput, Timestamp, TimestampInput, formatTimestamp } from "../../shared/schemas.ts"
import { EmbeddedOccurrence, EmbeddedPerson } from "../visits/model.ts"

/** Waitlist entries (spec: Waitlist entry, States and transitions). */
export const WAITLIST_STATES = ["pending", "waiting", "enrolled", "removed", "expired"] as const
export type WaitlistState = (typeof WAITLIST_STATES)[number]

/** States that hold a place in the queue (one such entry per person and occurrence). */
export const LIVE_STATES = ["pending", "waiting"] as const satisfies ReadonlyArray<WaitlistState>

export const WAITLIST_STATE_EVENTS = ["wait", "enroll"] as const
export type WaitlistStateEvent = (typeof WAITLIST_STATE_EVENTS)[number]

export const WAITLIST_RESTRICTION_CODES = [
  "event_cancelled",
  "event_deleted",
  "event_in_past",
  "person_already_waitlisted",
  "person_already_enrolled",
  "waitlist_full",
  "waitlist_disabled",
  "waitlist_unavailable"
] as const
export type WaitlistRestrictionCode = (typeof WAITLIST_RESTRICTION_CODES)[number]

export const WaitlistEntryFront = Schema.Struct({
  id: Schema.Int,
  person_id: Schema.Int,
  event_occurrence_id: Schema.Int,
  state: Schema.Literals(WAITLIST_STATES),
  event_occurrence: EmbeddedOccurrence,
  person: EmbeddedPerson
}).annotate({ identifier: "WaitlistEntryFront" })
export type WaitlistEntryFront = typeof WaitlistEntryFront.Type

export const WaitlistEntryDesk = Schema.Struct({
  ...WaitlistEntryFront.fields,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "WaitlistEntryDesk" })
export type WaitlistEntryDesk = typeof WaitlistEntryDesk.Type

export const WaitlistEligibility = Schema.Struct({
  person_id: Schema.Int,
  can_waitlist: Schema.Boolean,
  restrictions: Schema.Array(
    Schema.Struct({ code: Schema.Literals(WAITLIST_RESTRICTION_CODES), description: Schema.String })
  )
}).annotate({ identifier: "WaitlistEligibility" })
export type WaitlistEligibility = typeof WaitlistEligibility.Type

export const WaitlistEntryRow = Schema.Struct({
  id: Schema.Number,
  event_occurrence_id: Schema.Number,
  person_id: Schema.Number,
  state: Schema.Literals(WAITLIST_STATES),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type WaitlistEntryRow = typeof WaitlistEntryRow.Type

/** What an entry embeds (the public documentation's examples): loaded for a whole page at once. */
export interface EntryEmbeds {
  readonly event_occurrence: EmbeddedOccurrence
  readonly person: EmbeddedPerson
}

export const toFrontWire = (row: WaitlistEntryRow, embeds: EntryEmbeds): WaitlistEntryFront => ({
  id: row.id,
  person_id: row.person_id,
  event_occurrence_id: row.event_occurrence_id,
  state: row.state,
  event_occurrence: embeds.event_occurrence,
  person: embeds.person
})

export const toDeskWire = (row: WaitlistEntryRow, embeds: EntryEmbeds): WaitlistEntryDesk => ({
  ...toFrontWire(row, embeds),
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at)
})

/** `from`, `to` and `event_occurrence_id`, as for visits. */
export const EntryListQuery = Schema.Struct({
  ...PageQuery,
  from: Schema.optional(TimestampInput.annotate({ description: "Entries of occurrences starting at or after this instant; needs `to`" })),
  to: Schema.optional(TimestampInput.annotate({ description: "Entries of occurrences starting at or before this instant; needs `from`" })),
  event_occurrence_id: Schema.optional(IdFromString)
})
export type EntryListQuery = typeof EntryListQuery.Type

export const WaitlistEntryFrontCreate = Schema.Struct({
  person_id: Schema.optional(IntInput.annotate({ description: "The token's person (default) or one of their dependents" })),
  event_occurrence_id: IntInput
})

export const WaitlistEntryDeskCreate = Schema.Struct({
  person_id: IntInput,
  event_occurrence_id: IntInput
})

export const WaitlistEntryUpdate = Schema.Struct({
  state_event: Schema.Literals(WAITLIST_STATE_EVENTS).annotate({
    description: "`wait` puts the entry (back) in the queue; `enroll` marks it enrolled (not from `removed`)"
  })
})
