import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type NewSession, OngoingEnrollments } from "../../schedule/event-occurrences/ongoing-enrollments.ts"
import { admitVisits } from "../visits/capacity.ts"
import { emitVisitEvents } from "../visits/events.ts"
import { VisitsRepo } from "../visits/repo.ts"
import { WebhooksRepo } from "../../webhooks/repo.ts"
import { BookingsRepo } from "./repo.ts"

/**
 * Ongoing enrollments follow the schedule. A recurring lease (`recurring: true`) covers every
 * session of its group class from `start_at` on, but sessions exist only as far as the
 * materialization window reaches; each session the window (or an event change) adds later is
 * given to the event's live ongoing leases here, in the materialization's transaction:
 * - a completed booking's lease gets a `registered` visit (announced with visit.created);
 * - an incomplete booking's lease a `reserved` one it owns, released with the rest of its
 *   holds at expiry or removal, registered with them at completion (no webhook: a hold);
 * - expired leases, deleted bookings, bookings past `expires_at` and deleted people get nothing.
 *
 * One admission per (lease, session), capacity enforced: a session that is full, or where the
 * person already has a visit, is skipped for that lease alone (logged), and the lease keeps
 * the sessions that fit. Within a session the older lease goes first (by id), so who enrolled
 * first keeps their place when a class was made smaller. No mail: the client asked for every
 * session once; a skipped one can be waitlisted like any full session.
 */
export interface OngoingResult {
  readonly enrolled: number
  readonly skipped: number
}

export const extendOngoingLeases = Effect.fn("Leases.extendOngoing")(function* (
  businessId: number,
  eventId: number,
  sessions: ReadonlyArray<NewSession>
) {
  const nowMs = yield* Clock.currentTimeMillis
  const upcoming = sessions
    .filter((session) => session.start_at.getTime() > nowMs)
    .toSorted((a, b) => a.start_at.getTime() - b.start_at.getTime() || a.id - b.id)
  if (upcoming.length === 0) return { enrolled: 0, skipped: 0 } satisfies OngoingResult
  const leases = yield* (yield* BookingsRepo).ongoingLeases({ businessId, eventId, at: new Date(nowMs) })
  if (leases.length === 0) return { enrolled: 0, skipped: 0 } satisfies OngoingResult

  const registered: Array<number> = []
  let enrolled = 0
  let skipped = 0
  for (const session of upcoming) {
    for (const lease of leases) {
      if (lease.start_at.getTime() > session.start_at.getTime()) continue
      const admitted = yield* admitVisits(
        businessId,
        [{
          occurrenceId: session.id,
          personId: lease.person_id,
          state: lease.booking_state === "completed" ? "registered" : "reserved",
          bookingId: lease.booking_id,
          leaseId: lease.id
        }],
        { enforceCapacity: true }
      ).pipe(
        // admitVisits refuses before it writes anything, so a refusal leaves the transaction clean.
        Effect.catch((refusal) =>
          Effect.logWarning("ongoing lease not enrolled in a new session").pipe(
            Effect.annotateLogs({
              business_id: businessId,
              lease_id: lease.id,
              event_occurrence_id: session.id,
              reasons: refusal.errors.join("; ")
            }),
            Effect.as([] as ReadonlyArray<number>)
          )
        )
      )
      if (admitted.length === 0) {
        skipped++
        continue
      }
      enrolled++
      if (lease.booking_state === "completed") registered.push(...admitted)
    }
  }
  yield* emitVisitEvents(businessId, "visit.created", registered)
  yield* Effect.logInfo("ongoing leases extended").pipe(
    Effect.annotateLogs({ business_id: businessId, event_id: eventId, sessions: upcoming.length, enrolled, skipped })
  )
  return { enrolled, skipped } satisfies OngoingResult
})

/** The OngoingEnrollments port of the schedule, answered by the leases above. */
export const OngoingEnrollmentsLive = Layer.effect(OngoingEnrollments)(
  Effect.gen(function* () {
    // Only these services: the caller's fiber keeps its own (the transaction's connection above all).
    const services = Context.pick(SqlClient.SqlClient, BookingsRepo, VisitsRepo, WebhooksRepo)(
      yield* Effect.context<SqlClient.SqlClient | BookingsRepo | VisitsRepo | WebhooksRepo>()
    )
    return OngoingEnrollments.of({
      sessionsAdded: (businessId, eventId, sessions) =>
        extendOngoingLeases(businessId, eventId, sessions).pipe(Effect.asVoid, Effect.provideContext(services))
    })
  })
)
