import { Schema } from "effect"
import { defineJob } from "../../platform/jobs.ts"

/**
 * Expires one booking at its `expires_at` (enqueued, keyed by booking, with the booking), or,
 * without a booking (the cron entry), sweeps the bookings past expiry whose job was lost.
 * Run by workers/tasks/expire_booking.ts.
 */
export const ExpireBookingJob = defineJob(
  "expire_booking",
  Schema.Union([Schema.Struct({ business_id: Schema.Int, booking_id: Schema.Int }), Schema.Struct({})])
)
