import { Schema } from "effect"
import { IntInput, Timestamp, formatTimestamp } from "../../shared/schemas.ts"

/**
 * Punches (spec: Punches): a punch spends one visit of a person plan (a pack is a plan: its id is
 * the plan id) on one visit, and makes that visit paid. One punch per visit.
 */
export const PunchWire = Schema.Struct({
  id: Schema.Int,
  visit_id: Schema.Int,
  plan_id: Schema.Int.annotate({ description: "The person plan spent (a pack's id is its plan id)" }),
  person_id: Schema.Int.annotate({ description: "The visit's person, whose visit of the plan was spent" }),
  created_at: Timestamp
}).annotate({ identifier: "Punch" })
export type PunchWire = typeof PunchWire.Type

export const PunchRow = Schema.Struct({
  id: Schema.Number,
  visit_id: Schema.Number,
  plan_id: Schema.Number,
  person_id: Schema.Number,
  /** Null: made by auto-pay (the automatic choice), which an explicit punch may replace. */
  created_by_staff_member_id: Schema.NullOr(Schema.Number),
  created_at: Schema.Date
})
export type PunchRow = typeof PunchRow.Type

export const toPunchWire = (row: PunchRow): PunchWire => ({
  id: row.id,
  visit_id: row.visit_id,
  plan_id: row.plan_id,
  person_id: row.person_id,
  created_at: formatTimestamp(row.created_at)
})

export const PunchCreateInput = Schema.Struct({
  visit_id: IntInput.annotate({ description: "The visit to pay for (required)" }),
  plan_id: Schema.optional(
    Schema.NullOr(IntInput).annotate({
      description: "The person plan (or pack) to spend; absent or null: the best suitable plan of the visit's person is chosen"
    })
  )
}).annotate({ identifier: "PunchCreate" })
export type PunchCreateInput = typeof PunchCreateInput.Type

export const Punches = Schema.Struct({ punches: Schema.Array(PunchWire) })

/** What a punch needs to know of its visit: its person, state, payment and occurrence. */
export const PunchVisit = Schema.Struct({
  id: Schema.Number,
  person_id: Schema.NullOr(Schema.Number),
  state: Schema.String,
  punch_id: Schema.NullOr(Schema.Number),
  service_id: Schema.Number,
  location_id: Schema.NullOr(Schema.Number),
  staff_member_ids: Schema.Array(Schema.Number),
  /** The occurrence's start as a business-local calendar date (YYYY-MM-DD). */
  visit_date: Schema.String
})
export type PunchVisit = typeof PunchVisit.Type

/** A plan as a punch judges it on the visit's date, for the visit's person. */
export const PlanStanding = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  held: Schema.Boolean,
  current: Schema.Boolean,
  on_hold: Schema.Boolean,
  visits_left: Schema.NullOr(Schema.Number)
})
export type PlanStanding = typeof PlanStanding.Type
