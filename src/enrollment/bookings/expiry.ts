import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { enqueueJob } from "../../platform/jobs.ts"
import { releaseLeases } from "./leases.ts"
import { BookingsRepo } from "./repo.ts"
import { ExpireBookingJob } from "./jobs.ts"
import { expireJobKey } from "./service.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * Booking expiry (workers/tasks/expire_booking.ts). Under the booking's row lock, so it is
 * ordered with completion: a booking completed first stays completed; one still incomplete
 * and past `expires_at` (by the service's Clock) expires, its leases too, and whatever they
 * held is released. A job that runs early (clock skew, a moved expiry) queues itself again.
 */
export type ExpiryOutcome = "expired" | "rescheduled" | "skipped"

export const expireBooking = Effect.fn("Bookings.expire")(function* (businessId: number, bookingId: number) {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* BookingsRepo
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      const booking = yield* repo.find({ businessId, id: bookingId, lock: true })
      if (!booking || booking.state !== "incomplete") return "skipped" as ExpiryOutcome
      const now = (yield* currentTime)
      if (now.getTime() < booking.expires_at.getTime()) {
        yield* enqueueJob(ExpireBookingJob, { business_id: businessId, booking_id: bookingId }, {
          runAt: booking.expires_at,
          jobKey: expireJobKey(businessId, bookingId)
        })
        return "rescheduled" as ExpiryOutcome
      }
      const leases = yield* repo.leasesOf({ businessId, bookingIds: [bookingId] })
      yield* releaseLeases(businessId, leases)
      yield* repo.setLeasesState({ businessId, ids: leases.map((lease) => lease.id), state: "expired", now })
      yield* repo.setState({ businessId, id: bookingId, state: "expired", now })
      return "expired" as ExpiryOutcome
    })
  ).pipe(Effect.orDie)
})

/** The sweep (cron, every 5 minutes): bookings past expiry whose job was lost, each in its own transaction. */
export const SWEEP_BATCH = 200

export const expireDueBookings = Effect.fn("Bookings.expireDue")(function* () {
  const now = (yield* currentTime)
  const due = yield* (yield* BookingsRepo).due({ now, limit: SWEEP_BATCH })
  let expired = 0
  for (const booking of due) if ((yield* expireBooking(booking.business_id, booking.id)) === "expired") expired++
  return expired
})
