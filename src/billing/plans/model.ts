import { Schema } from "effect"
import { Cents, FormattedMoney } from "../../shared/money.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { BooleanInput, DateString, IntInput, Timestamp } from "../../shared/schemas.ts"
import { utcMillis } from "../../shared/zoned-time.ts"

/**
 * Person plans (spec: Plans and person plans) and packs (spec: Pack). A pack is a plan of type
 * Pack and its id is the plan id; the records are the public API's (compatibility notes), plus
 * what a client otherwise has to compute: the visits left for the person, on_hold, holds.
 */
export const PLAN_TYPES = ["Pack", "Membership", "Prepaid"] as const
export const PLAN_FILTERS = ["active", "active_with_upcoming", "current", "inactive", "upcoming", "usable"] as const
export type PlanFilter = (typeof PLAN_FILTERS)[number]
export const STATE_EVENTS = ["cancel", "deactivate", "reactivate"] as const

export const HoldWire = Schema.Struct({
  id: Schema.Int,
  start_date: Schema.String.annotate({ description: "First day of the hold (business-local date)" }),
  end_date: Schema.NullOr(Schema.String).annotate({ description: "Last day of the hold; null: until removed" }),
  created_at: Timestamp
}).annotate({ identifier: "PlanHold" })
export type HoldWire = typeof HoldWire.Type

export const PlanWire = Schema.Struct({
  id: Schema.Int,
  count: Schema.NullOr(Schema.Int).annotate({ description: "Visits the plan gives (per limit_period when set); null: unlimited" }),
  type: Schema.Literals(PLAN_TYPES),
  person_ids: Schema.Array(Schema.Int).annotate({ description: "Who holds the plan; the first is the primary participant" }),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  price_cents: Cents,
  price: FormattedMoney,
  consider_member: Schema.Boolean,
  plan_product_id: Schema.Int,
  start_date: Schema.String,
  end_date: Schema.NullOr(Schema.String).annotate({ description: "Last day the plan is valid (inclusive); null: no end" }),
  staff_member_id: Schema.NullOr(Schema.Int),
  location_id: Schema.NullOr(Schema.Int),
  canceled_at: Schema.NullOr(Timestamp),
  deactivated_at: Schema.NullOr(Timestamp),
  limit_period: Schema.NullOr(Schema.String),
  rollover_count: Schema.Int,
  visits_shared: Schema.Boolean,
  visits_remaining: Schema.NullOr(Schema.Int).annotate({
    description: "Visits left today for the person of the path (the primary participant elsewhere); null: unlimited"
  }),
  on_hold: Schema.Boolean.annotate({ description: "A hold covers today" }),
  holds: Schema.optionalKey(Schema.Array(HoldWire).annotate({ description: "With include_holds=true" })),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "Plan" })
export type PlanWire = typeof PlanWire.Type

export const PackWire = Schema.Struct({
  id: Schema.Int.annotate({ description: "The pack's plan id (punches take it as plan_id)" }),
  count: Schema.Int,
  person_ids: Schema.Array(Schema.Int),
  description: Schema.NullOr(Schema.String),
  price_cents: Cents,
  price: FormattedMoney,
  rollover_count: Schema.Int,
  pack_product_id: Schema.Int,
  start_date: Schema.String,
  end_date: Schema.NullOr(Schema.String).annotate({ description: "Last day the pack is valid (inclusive); null: no end" }),
  staff_member_id: Schema.NullOr(Schema.Int),
  location_id: Schema.NullOr(Schema.Int),
  visits_shared: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "Pack" })
export type PackWire = typeof PackWire.Type

/** A plan as read from the database, for the person it is read for. */
export const PlanRow = Schema.Struct({
  id: Schema.Number,
  plan_product_id: Schema.Number,
  type: Schema.Literals(PLAN_TYPES),
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  price_cents: Schema.Number,
  count: Schema.NullOr(Schema.Number),
  limit_period: Schema.NullOr(Schema.String),
  rollover_count: Schema.Number,
  consider_member: Schema.Boolean,
  visits_shared: Schema.Boolean,
  start_date: Schema.String,
  end_date: Schema.NullOr(Schema.String),
  staff_member_id: Schema.NullOr(Schema.Number),
  location_id: Schema.NullOr(Schema.Number),
  canceled_at: Schema.NullOr(Schema.Date),
  deactivated_at: Schema.NullOr(Schema.Date),
  person_ids: Schema.Array(Schema.Number),
  visits_remaining: Schema.NullOr(Schema.Number),
  on_hold: Schema.Boolean,
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type PlanRow = typeof PlanRow.Type

export const HoldRow = Schema.Struct({
  id: Schema.Number,
  plan_id: Schema.Number,
  start_date: Schema.String,
  end_date: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})
export type HoldRow = typeof HoldRow.Type

/** What a pack copies from its pack product. */
export const PackProductRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  price_cents: Schema.Number,
  count: Schema.Number,
  commitment_length: Schema.NullOr(Schema.Number),
  commitment_unit: Schema.NullOr(Schema.Literals(["day", "week", "month", "year"])),
  consider_member: Schema.Boolean,
  suspended: Schema.Boolean,
  terms: Schema.NullOr(Schema.String),
  terms_acceptance_required: Schema.Boolean,
  terms_acceptance_type: Schema.Literals(["checkbox", "document"])
})
export type PackProductRow = typeof PackProductRow.Type

// ---------------------------------------------------------------------------------------------
// Requests

const Nullable = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema))

/** Form bodies send `pack[person_ids][]=7` (strings); JSON sends numbers. Rules are checked by the service. */
export const PackCreateInput = Schema.Struct({
  person_ids: Nullable(Schema.Array(IntInput)).annotate({ description: "Required: one or more people; several share the pack" }),
  start_date: Nullable(DateString).annotate({ description: "Default today (business-local)" }),
  end_date: Nullable(DateString).annotate({
    description: "Last valid day (inclusive). Default: start_date plus the product's commitment, less one day"
  }),
  count: Nullable(IntInput).annotate({ description: "Visits; default the product's count" }),
  description: Nullable(Schema.String),
  price_cents: Nullable(IntInput).annotate({ description: "Default the product's price" }),
  staff_member_id: Nullable(IntInput).annotate({ description: "Only visits instructed by that staff member" }),
  location_id: Nullable(IntInput).annotate({ description: "Only visits at that location" }),
  visits_shared: Nullable(BooleanInput).annotate({ description: "Default true for one person, false for several" })
})
export type PackCreateInput = typeof PackCreateInput.Type

export const HoldInput = Schema.Struct({
  start_date: Nullable(DateString).annotate({ description: "Default today (business-local)" }),
  end_date: Nullable(DateString).annotate({ description: "Last day on hold (inclusive); absent or null: until removed" })
})
export type HoldInput = typeof HoldInput.Type

export const PlanUpdateInput = Schema.Struct({
  state_event: Schema.optional(Schema.Literals(STATE_EVENTS)).annotate({
    description: "cancel (ends the plan at end_date, default today), deactivate (stops it at once), reactivate (undoes deactivate)"
  }),
  end_date: Nullable(DateString).annotate({ description: "New last day (inclusive); with cancel: the day the plan ends" })
})
export type PlanUpdateInput = typeof PlanUpdateInput.Type

export const PlanListQuery = Schema.Struct({
  ...PageQuery,
  include_holds: Schema.optional(BooleanInput.annotate({ description: "Add each plan's holds" }))
})
export type PlanListQuery = typeof PlanListQuery.Type

export const PersonPlanListQuery = Schema.Struct({
  ...PlanListQuery.fields,
  filter: Schema.optional(Schema.Literals(PLAN_FILTERS)).annotate({
    description:
      "active (current with visits left), active_with_upcoming (active or not yet started), current (dates include today), " +
      "inactive (not active), upcoming (visits left, not started), usable (active and not on hold); absent: all"
  })
})
export type PersonPlanListQuery = typeof PersonPlanListQuery.Type

export const Plans = Schema.Struct({ plans: Schema.Array(PlanWire) })
export const PlanPage = Schema.Struct({ plans: Schema.Array(PlanWire), ...PageFields })
export const Packs = Schema.Struct({ packs: Schema.Array(PackWire) })
export const Holds = Schema.Struct({ holds: Schema.Array(HoldWire) })

// ---------------------------------------------------------------------------------------------
// Dates

/** `YYYY-MM-DD`, or `+YYYYYY-MM-DD` past year 9999, which no date field accepts (a 422, not a crash). */
const isoDate = (date: Date) => date.toISOString().replace(/T.*$/, "")

/**
 * The last valid day of a plan starting on `start` for `length` `unit`s: the day before the same
 * date `length` units later (a month from Jan 31 is the last day of February, as PostgreSQL and
 * Rails count). A length of 0 or none: no end.
 */
/**
 * A pack's default end (spec, Pack: "default start plus the pack product expiration"): the start
 * date moved by the expiration, so a 30-day pack started 2026-11-27 ends 2026-12-27 and a month
 * from Jan 31 ends Feb 28 (the month's last day when the date does not exist).
 */
export const expirationEnd = (start: string, length: number | null, unit: PackProductRow["commitment_unit"]): string | null => {
  const last = commitmentEnd(start, length, unit)
  if (last === null) return null
  const [y, m, d] = last.split("-").map(Number) as [number, number, number]
  const end = new Date(utcMillis(y, m - 1, d + 1))
  return isoDate(end)
}

export const commitmentEnd = (start: string, length: number | null, unit: PackProductRow["commitment_unit"]): string | null => {
  if (length === null || unit === null || length <= 0) return null
  const [y, m, d] = start.split("-").map(Number) as [number, number, number]
  let end: Date
  if (unit === "day" || unit === "week") end = new Date(utcMillis(y, m - 1, d + length * (unit === "week" ? 7 : 1)))
  else {
    const months = unit === "year" ? length * 12 : length
    const lastDay = new Date(utcMillis(y, m - 1 + months + 1, 0)).getUTCDate()
    end = new Date(utcMillis(y, m - 1 + months, Math.min(d, lastDay)))
  }
  end.setUTCDate(end.getUTCDate() - 1)
  return isoDate(end)
}
