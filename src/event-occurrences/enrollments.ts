import { Context, Effect } from "effect"
import type { VisitWire } from "../visits/model.ts"
import type { PersonRef } from "./model.ts"

/**
 * What the schedule needs to know about enrollment (visits, bookings and their leases), which
 * arrives with the enrollment work. Until then nobody is enrolled and no place is taken: the
 * default below answers so, and every caller (capacity_remaining and `full` on occurrences,
 * the `full` and `already_enrolled` eligibility codes, the desk roster) already asks.
 *
 * Plug point: the enrollment work provides a real implementation (counting visits that hold a
 * place plus the leases of open bookings) with `Layer.succeed(Enrollments)(...)` in
 * src/layers.ts; nothing else changes.
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
  /** The visits of one occurrence (staff mode `:id`). */
  readonly visits: (businessId: number, occurrenceId: number) => Effect.Effect<ReadonlyArray<VisitWire>>
  /** Occurrences whose waitlist is full. */
  readonly waitlistFull: (businessId: number, occurrenceIds: ReadonlyArray<number>) => Effect.Effect<ReadonlySet<number>>
}

const none: EnrollmentsShape = {
  placesTaken: () => Effect.succeed(new Map()),
  coursePlacesTaken: () => Effect.succeed(0),
  enrolledInOccurrence: () => Effect.succeed(new Set()),
  enrolledInCourse: () => Effect.succeed(new Set()),
  attendees: () => Effect.succeed(new Map()),
  visits: () => Effect.succeed([]),
  waitlistFull: () => Effect.succeed(new Set())
}

export const Enrollments = Context.Reference<EnrollmentsShape>("studio/Enrollments", { defaultValue: () => none })
