import { Schema } from "effect"
import { OCCURRENCE_STATES, RosterVisit } from "../../schedule/event-occurrences/model.ts"
import { PageQuery } from "../../shared/pagination.ts"
import { BooleanInput, IntInput, Timestamp, TimestampInput, formatTimestamp, positiveIntParam } from "../../shared/schemas.ts"

/**
 * Visits: a person tied to an event occurrence (spec: Visit). The state machine is the spec's
 * table; `reserved` visits may have no person (a lease's hold, or a staff placeholder).
 */
export const VISIT_STATES = ["reserved", "registered", "completed", "noshowed", "late_canceled"] as const
export type VisitState = (typeof VISIT_STATES)[number]

/** States that take a place in the occurrence (docs/decisions.md: completed keeps its place). */
export const HOLDING_STATES = ["reserved", "registered", "completed"] as const satisfies ReadonlyArray<VisitState>

export const VISIT_STATE_EVENTS = ["register", "complete", "noshow", "late_cancel", "reset"] as const
export type VisitStateEvent = (typeof VISIT_STATE_EVENTS)[number]

/** The spec's transition table: from which states each event moves, and where to. */
export const VISIT_TRANSITIONS: Record<VisitStateEvent, { readonly from: ReadonlyArray<VisitState>; readonly to: VisitState }> = {
  register: { from: ["reserved"], to: "registered" },
  complete: { from: ["registered"], to: "completed" },
  noshow: { from: ["registered"], to: "noshowed" },
  late_cancel: { from: ["registered"], to: "late_canceled" },
  reset: { from: ["completed", "noshowed", "late_canceled"], to: "registered" }
}

/** A visit on the wire: the shape the schedule's rosters already declare (event-occurrences). */
export const VisitWire = RosterVisit.annotate({ identifier: "Visit" })
export type VisitWire = typeof VisitWire.Type

export const VisitRow = Schema.Struct({
  id: Schema.Number,
  event_occurrence_id: Schema.Number,
  person_id: Schema.NullOr(Schema.Number),
  state: Schema.Literals(VISIT_STATES),
  booking_id: Schema.NullOr(Schema.Number),
  lease_id: Schema.NullOr(Schema.Number),
  notify_client: Schema.Boolean,
  registered_at: Schema.NullOr(Schema.Date),
  completed_at: Schema.NullOr(Schema.Date),
  noshow_at: Schema.NullOr(Schema.Date),
  cancelled_at: Schema.NullOr(Schema.Date),
  punch_id: Schema.NullOr(Schema.Number),
  paid_for_by: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type VisitRow = typeof VisitRow.Type

/** The columns VisitRow decodes, for `select ${VISIT_COLUMNS} from visits v`. */
export const VISIT_COLUMNS = `v.id, v.event_occurrence_id, v.person_id, v.state, v.booking_id, v.lease_id, v.notify_client,
  v.registered_at, v.completed_at, v.noshow_at, v.cancelled_at, v.punch_id, v.paid_for_by, v.created_at, v.updated_at`

const stamp = (date: Date | null) => (date === null ? null : formatTimestamp(date))

export const toVisitWire = (row: VisitRow): VisitWire => ({
  id: row.id,
  person_id: row.person_id,
  state: row.state,
  event_occurrence_id: row.event_occurrence_id,
  registered_at: stamp(row.registered_at),
  completed_at: stamp(row.completed_at),
  noshow_at: stamp(row.noshow_at),
  cancelled_at: stamp(row.cancelled_at),
  created_at: formatTimestamp(row.created_at),
  paid: row.punch_id !== null,
  paid_for_by: row.paid_for_by,
  punch_id: row.punch_id
})

// ---------------------------------------------------------------------------------------------
// Embedded records: the keys the public documentation's visit and waitlist examples show

/** The occurrence of a visit or waitlist entry, embedded: what a client shows beside it. */
export const EmbeddedOccurrence = Schema.Struct({
  id: Schema.Int,
  event_id: Schema.NullOr(Schema.Int).annotate({ description: "null for an appointment" }),
  name: Schema.String,
  service_id: Schema.Int,
  location_id: Schema.NullOr(Schema.Int),
  start_at: Timestamp,
  end_at: Timestamp,
  timezone: Schema.String.annotate({ description: "IANA time zone of the occurrence" }),
  state: Schema.Literals(OCCURRENCE_STATES)
}).annotate({ identifier: "EmbeddedEventOccurrence", description: "The event occurrence, embedded (its own endpoint has every field)" })
export type EmbeddedOccurrence = typeof EmbeddedOccurrence.Type

/** The person of a visit or waitlist entry, embedded. */
export const EmbeddedPerson = Schema.Struct({
  id: Schema.Int,
  name: Schema.String.annotate({ description: "First and last name" }),
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.NullOr(Schema.String)
}).annotate({ identifier: "EmbeddedPerson", description: "The person, embedded (the people endpoints have every field)" })
export type EmbeddedPerson = typeof EmbeddedPerson.Type

export const EmbeddedOccurrenceRow = Schema.Struct({
  id: Schema.Number,
  event_id: Schema.NullOr(Schema.Number),
  name: Schema.String,
  service_id: Schema.Number,
  location_id: Schema.NullOr(Schema.Number),
  start_at: Schema.Date,
  end_at: Schema.Date,
  time_zone: Schema.String,
  state: Schema.Literals(OCCURRENCE_STATES)
})
export type EmbeddedOccurrenceRow = typeof EmbeddedOccurrenceRow.Type

export const EmbeddedPersonRow = Schema.Struct({
  id: Schema.Number,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.NullOr(Schema.String)
})
export type EmbeddedPersonRow = typeof EmbeddedPersonRow.Type

/** A visit read with what `:id` embeds: its occurrence (`o_`) and its person (`p_`, null without one). */
export const ShownVisitRow = Schema.Struct({
  ...VisitRow.fields,
  o_event_id: Schema.NullOr(Schema.Number),
  o_name: Schema.String,
  o_service_id: Schema.Number,
  o_location_id: Schema.NullOr(Schema.Number),
  o_start_at: Schema.Date,
  o_end_at: Schema.Date,
  o_time_zone: Schema.String,
  o_state: Schema.Literals(OCCURRENCE_STATES),
  p_first_name: Schema.NullOr(Schema.String),
  p_last_name: Schema.NullOr(Schema.String),
  p_email: Schema.NullOr(Schema.String)
})
export type ShownVisitRow = typeof ShownVisitRow.Type

export const toEmbeddedOccurrence = (row: EmbeddedOccurrenceRow): EmbeddedOccurrence => ({
  id: row.id,
  event_id: row.event_id,
  name: row.name,
  service_id: row.service_id,
  location_id: row.location_id,
  start_at: formatTimestamp(row.start_at),
  end_at: formatTimestamp(row.end_at),
  timezone: row.time_zone,
  state: row.state
})

export const toEmbeddedPerson = (row: EmbeddedPersonRow): EmbeddedPerson => ({
  id: row.id,
  name: `${row.first_name} ${row.last_name}`.trim(),
  first_name: row.first_name,
  last_name: row.last_name,
  email: row.email
})

/**
 * A visit as the visit endpoints answer it (lists and `:id`): the roster's fields, `status`
 * (the state, under the name the public documentation's examples use) and the occurrence.
 */
export const VisitDetail = Schema.Struct({
  ...RosterVisit.fields,
  status: Schema.Literals(VISIT_STATES).annotate({ description: "The visit's state, under its public name (the same word as state)" }),
  event_occurrence: EmbeddedOccurrence
}).annotate({ identifier: "VisitDetail" })
export type VisitDetail = typeof VisitDetail.Type

/** `GET visits/:id` also embeds the person (null for a reserved place without one). */
export const VisitOne = Schema.Struct({
  ...VisitDetail.fields,
  person: Schema.NullOr(EmbeddedPerson)
}).annotate({ identifier: "VisitOne" })
export type VisitOne = typeof VisitOne.Type

// ---------------------------------------------------------------------------------------------
// Visit endpoints: path targets, queries, bodies and the completed-visit summary


/** from/to/event_occurrence_id and pages, as the spec gives them for a person's visits. */
export const VisitListQuery = Schema.Struct({
  ...PageQuery,
  from: Schema.optional(TimestampInput.annotate({ description: "Occurrences starting at or after; required with `to`" })),
  to: Schema.optional(TimestampInput.annotate({ description: "Occurrences starting at or before; required with `from`" })),
  event_occurrence_id: Schema.optional(positiveIntParam("Only visits of this event occurrence"))
})
export type VisitListQuery = typeof VisitListQuery.Type

/** Restrictions staff may ask POST /desk/visits to enforce (spec). */
export const VISIT_RESTRICTIONS = ["inside_blackout_window", "full", "in_the_past"] as const

export const VisitCreateFrontInput = Schema.Struct({
  person_id: Schema.optional(IntInput.annotate({ description: "Default: the token's person; else one of their dependents" })),
  event_occurrence_id: IntInput
}).annotate({ identifier: "VisitCreateFront" })
export type VisitCreateFrontInput = typeof VisitCreateFrontInput.Type

export const VisitCreateDeskInput = Schema.Struct({
  person_id: Schema.optional(Schema.NullOr(IntInput).annotate({ description: "Required unless state is reserved" })),
  event_occurrence_id: IntInput,
  state: Schema.optional(Schema.Literals(VISIT_STATES).annotate({ description: "Default registered" })),
  notify_client: Schema.optional(BooleanInput.annotate({ description: "Write-only, default true; also governs the notice on delete" })),
  restrictions: Schema.optional(
    Schema.Array(Schema.Literals(VISIT_RESTRICTIONS)).annotate({
      description: "Rules to enforce: inside_blackout_window, full, in_the_past. Without `full` staff may overbook."
    })
  )
}).annotate({ identifier: "VisitCreateDesk" })
export type VisitCreateDeskInput = typeof VisitCreateDeskInput.Type

export const VisitUpdateInput = Schema.Struct({
  person_id: Schema.optional(IntInput.annotate({ description: "Settable on a visit without a person; not changeable" })),
  state_event: Schema.optional(Schema.Literals(VISIT_STATE_EVENTS).annotate({ description: "register, complete, noshow, late_cancel, reset" }))
}).annotate({ identifier: "VisitUpdate" })
export type VisitUpdateInput = typeof VisitUpdateInput.Type

export const ServiceVisitSummary = Schema.Struct({
  service_id: Schema.Int,
  first_visited_at: Timestamp.annotate({ description: "Start of the earliest completed visit's occurrence of this service" }),
  last_visited_at: Timestamp.annotate({ description: "Start of the latest completed visit's occurrence of this service" }),
  name: Schema.String.annotate({ description: "The service's name" }),
  completed_count: Schema.Int.annotate({ description: "Completed visits of this service" })
}).annotate({ identifier: "ServiceVisitSummary" })

export const VisitSummary = Schema.Struct({
  person_id: Schema.Int,
  first_visited_at: Schema.NullOr(Timestamp).annotate({ description: "Start of the earliest completed visit's occurrence" }),
  last_visited_at: Schema.NullOr(Timestamp).annotate({ description: "Start of the latest completed visit's occurrence" }),
  services_visited_at: Schema.Array(ServiceVisitSummary).annotate({ description: "Per service, by first completed visit" }),
  completed_count: Schema.Int.annotate({ description: "Completed visits in all" })
}).annotate({ identifier: "VisitSummary" })
export type VisitSummary = typeof VisitSummary.Type
