import { Context, type Effect } from "effect"

/**
 * What enrollment does when materialization adds sessions to an event: the event's ongoing
 * (recurring) leases are enrolled in them, so "every Tuesday" keeps meaning every Tuesday as
 * the window moves forward.
 *
 * A required port like `Enrollments` (enrollments.ts): bookings depend on the schedule, so the
 * schedule asks through this service instead of importing bookings; src/enrollment/bookings/ongoing.ts
 * answers it and src/app/layers.ts provides that layer.
 */
export interface NewSession {
  readonly id: number
  readonly start_at: Date
}

export interface OngoingEnrollmentsShape {
  /**
   * Runs inside the materialization's transaction, after `sessions` (new, not started) were
   * inserted; the event row is locked for that transaction.
   */
  readonly sessionsAdded: (businessId: number, eventId: number, sessions: ReadonlyArray<NewSession>) => Effect.Effect<void>
}

export class OngoingEnrollments extends Context.Service<OngoingEnrollments, OngoingEnrollmentsShape>()("studio/OngoingEnrollments") {}
