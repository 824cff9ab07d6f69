import { Context, type Effect } from "effect"
import type { PersonRef, RosterVisit } from "./model.ts"

/**
 * What the schedule needs to know about enrollment: places taken (capacity_remaining and
 * `full` on occurrences), who is enrolled (the `full` and `already_enrolled` eligibility
 * codes), the desk roster and its visits, and whether a waitlist is full.
 *
 * A required port: enrollment (visits, bookings and their leases) depends on the schedule, so
 * the schedule declares what it asks, in its own shapes (`RosterVisit`, `PersonRef`), and
 * src/enrollment/visits/enrollments-live.ts answers it; src/app/layers.ts provides that layer. A layer graph
 * without it does not compile.
 */
export interface EnrollmentsShape {
  /** Places taken in each occurrence (absent: none). */
  readonly placesTaken: (businessId: number, occurrenceIds: ReadonlyArray<number>) => Effect.Effect<ReadonlyMap<number, number>>
  /** Places taken in a course's run: the most taken in any of its sessions. */
  readonly coursePlacesTaken: (businessId: number, eventId: number) => Effect.Effect<number>
  /** Of `personIds`, who is enrolled in the occurrence. */
  readonly enrolledInOccurrence: (
    businessId: number,
    occurrenceId: number,
    personIds: ReadonlyArray<number>
  ) => Effect.Effect<ReadonlySet<number>>
  /** Of `personIds`, who is enrolled in a course (any session of the event). */
  readonly enrolledInCourse: (businessId: number, eventId: number, personIds: ReadonlyArray<number>) => Effect.Effect<ReadonlySet<number>>
  /** The people on each occurrence's roster (staff mode). */
  readonly attendees: (
    businessId: number,
    occurrenceIds: ReadonlyArray<number>
  ) => Effect.Effect<ReadonlyMap<number, ReadonlyArray<PersonRef>>>
  /**
   * The people with a visit on any occurrence of each event (its attendees), by first visit;
   * `personIds` keeps only those people (client mode: the caller and dependents).
   */
  readonly eventAttendees: (
    businessId: number,
    eventIds: ReadonlyArray<number>,
    personIds: ReadonlyArray<number> | null
  ) => Effect.Effect<ReadonlyMap<number, ReadonlyArray<PersonRef>>>
  /** The visits of one occurrence (staff mode `:id`). */
  readonly visits: (businessId: number, occurrenceId: number) => Effect.Effect<ReadonlyArray<RosterVisit>>
  /** Occurrences whose waitlist is full. */
  readonly waitlistFull: (businessId: number, occurrenceIds: ReadonlyArray<number>) => Effect.Effect<ReadonlySet<number>>
}

export class Enrollments extends Context.Service<Enrollments, EnrollmentsShape>()("studio/Enrollments") {}
