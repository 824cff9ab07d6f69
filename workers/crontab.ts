import { ReportSyncJob } from "../reports/jobs.ts"
import { ExpireBookingJob } from "../src/enrollment/bookings/jobs.ts"
import { MaterializeEventOccurrencesJob } from "../src/schedule/events/jobs.ts"
import { EmitUpcomingOccurrencesJob } from "./tasks/emit_upcoming_occurrences.ts"
import { ExpireWaitlistEntriesJob } from "./tasks/expire_waitlist_entries.ts"
import { PruneWebhookEventsJob } from "./tasks/prune_webhook_events.ts"
import { EmitEndedPlansJob } from "./tasks/emit_ended_plans.ts"
import { PruneIdempotencyKeysJob } from "./tasks/prune_idempotency_keys.ts"
import { CancelAbandonedCartsJob } from "./tasks/cancel_abandoned_carts.ts"
import { BillMembershipsJob } from "./tasks/bill_memberships.ts"

/**
 * Recurring jobs in graphile-worker's crontab format (UTC, one-minute granularity), one per
 * line: `<cron> <task> ?<options> <payload>`.
 * - The report store: a full rebuild nightly, and an incremental refresh every minute (each
 *   refresh also queues the next one sooner, see reports/sync/run.ts). Both run in the
 *   `reports` queue, one at a time; the job keys keep at most one of each waiting.
 * - Event occurrences: daily, every event's rolling window moves a day forward (one keyed job
 *   per event, see src/schedule/event-occurrences/materialize.ts); a missed day is caught up.
 * - Waitlists: every 15 minutes, waiting entries of occurrences that have started expire
 *   (src/enrollment/waitlists/offer.ts); no backfill, the next sweep catches up.
 * - Bookings: every 5 minutes, incomplete bookings past expiry whose keyed job was lost expire
 *   (src/enrollment/bookings/expiry.ts); each booking's own job normally does it at its expires_at.
 * - Webhooks: every 5 minutes, event_occurrence.upcoming for occurrences entering the next 24
 *   hours (src/schedule/event-occurrences/upcoming.ts; a missed run is caught up); daily, events older than 30
 *   days are pruned with their deliveries (src/webhooks/retention.ts).
 * - Plans: every 15 minutes, plan.ended for plans whose last day has passed in their business's
 *   time zone (src/billing/plans/ended.ts; each plan once, a missed run is caught up).
 * - Idempotency keys: daily, keys past their retention are deleted (src/shared/idempotency.ts).
 * - Invoices: every 30 minutes, carts untouched for 24 hours are canceled (src/billing/invoices/abandoned.ts).
 * - Memberships: every 15 minutes, periods that have begun are invoiced and charged, each once
 *   (src/billing/billing-runs/service.ts; a missed run is caught up).
 */
export const crontab = [
  `*/5 * * * * ${ExpireBookingJob.name} ?id=expire_bookings_sweep&jobKey=expire_bookings_sweep {}`,
  `0 3 * * * ${ReportSyncJob.name} ?id=report_sync_nightly&queue=reports&jobKey=report_sync_full {"mode":"full"}`,
  `* * * * * ${ReportSyncJob.name} ?id=report_sync_minutely&queue=reports&jobKey=report_sync_incremental {"mode":"incremental"}`,
  `15 9 * * * ${MaterializeEventOccurrencesJob.name} ?id=materialize_event_occurrences_daily&fill=1d&jobKey=materialize_event_occurrences_sweep {}`,
  `*/15 * * * * ${ExpireWaitlistEntriesJob.name} ?id=expire_waitlist_entries&jobKey=expire_waitlist_entries {}`,
  `*/5 * * * * ${EmitUpcomingOccurrencesJob.name} ?id=emit_upcoming_occurrences&jobKey=emit_upcoming_occurrences {}`,
  `40 4 * * * ${PruneWebhookEventsJob.name} ?id=prune_webhook_events&jobKey=prune_webhook_events {}`,
  `*/15 * * * * ${EmitEndedPlansJob.name} ?id=emit_ended_plans&jobKey=emit_ended_plans {}`,
  `50 4 * * * ${PruneIdempotencyKeysJob.name} ?id=prune_idempotency_keys&jobKey=prune_idempotency_keys {}`,
  `*/30 * * * * ${CancelAbandonedCartsJob.name} ?id=cancel_abandoned_carts&jobKey=cancel_abandoned_carts {}`,
  `7,22,37,52 * * * * ${BillMembershipsJob.name} ?id=bill_memberships&jobKey=bill_memberships {}`
].join("\n")
