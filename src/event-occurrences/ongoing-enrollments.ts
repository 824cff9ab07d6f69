import { Context, Effect } from "effect"

/**
 * What enrollment does when materialization adds sessions to an event: the event's ongoing
 * (recurring) leases are enrolled in them (src/bookings/ongoing.ts), so "every Tuesday" keeps
 * meaning every Tuesday as the window moves forward.
 *
 * A plug point like `Enrollments` (enrollments.ts): bookings depend on the schedule, so the
 * schedule asks through this reference instead of importing bookings. src/layers.ts provides
 * the real one; the default enrolls nobody (a schedule without enrollment).
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

const nobody: OngoingEnrollmentsShape = { sessionsAdded: () => Effect.void }

export const OngoingEnrollments = Context.Reference<OngoingEnrollmentsShape>("studio/OngoingEnrollments", { defaultValue: () => nobody })
