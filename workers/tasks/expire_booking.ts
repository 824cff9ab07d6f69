import { Effect } from "effect"
import { expireBooking, expireDueBookings } from "../../src/enrollment/bookings/expiry.ts"
import { ExpireBookingJob } from "../../src/enrollment/bookings/jobs.ts"

/**
 * Expires one booking at its `expires_at` (enqueued, keyed by booking, in the transaction that
 * created it), or, without a booking (the cron entry), sweeps the bookings past expiry whose
 * job was lost. graphile-worker adds `_cron` to the cron payload; unknown keys are ignored.
 */
export const expireBookingTask = (payload: unknown) =>
  Effect.gen(function* () {
    const job = yield* ExpireBookingJob.decode(payload)
    if ("booking_id" in job) {
      const outcome = yield* expireBooking(job.business_id, job.booking_id)
      yield* Effect.logInfo("booking expiry").pipe(Effect.annotateLogs({ business_id: job.business_id, booking_id: job.booking_id, outcome }))
    } else {
      const expired = yield* expireDueBookings()
      if (expired > 0) yield* Effect.logInfo("expired bookings whose job was lost").pipe(Effect.annotateLogs({ expired }))
    }
  })
