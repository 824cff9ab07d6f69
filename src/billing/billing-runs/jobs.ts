import { Schema } from "effect"
import { defineJob } from "../../platform/jobs.ts"

/**
 * Charges one membership billing period's invoice (workers/tasks/charge_membership_period.ts):
 * enqueued by the sweep in the transaction that claims the period, and again by a declined
 * attempt for its retry. Keyed per period, so at most one is waiting.
 */
export const ChargeMembershipPeriodJob = defineJob(
  "charge_membership_period",
  Schema.Struct({ business_id: Schema.Number, period_id: Schema.Number })
)
