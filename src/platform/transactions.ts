import { Cause, Data, Effect, Schedule } from "effect"
import { SqlClient, SqlError } from "effect/sql"

/**
 * The one way a request's write runs in a transaction. Writers that lock rows (the capacity
 * rule, bookings, waitlists, the materializer) can meet in a cycle PostgreSQL breaks by
 * aborting one of them (deadlock_detected), or fail a serialization check: the aborted one has
 * written nothing, so it is run again, up to three more times after a short random pause,
 * instead of answering 500. Any other SQL error is a defect, as everywhere.
 *
 * Its statements are planned generically (`plan_cache_mode = force_generic_plan`, for this
 * transaction only): once per connection, not for each call's values. A request's write looks
 * its rows up by key, where a plan for the values buys nothing, and the values' plans cost the
 * most where businesses differ in size: beside a large business a small one's statements were
 * planned again on every call (the booking's automatic plan choice: about 1 ms of planning for
 * 0.04 ms of work), and planned from statistics taken when the small business was smaller, walking
 * more of its rows as it grew (docs/decisions.md, Platform, Data, "a write's statements are planned once").
 */
const isLockConflict = (cause: Cause.Cause<unknown>): boolean => {
  const error = Cause.squash(cause)
  return SqlError.isSqlError(error) && (error.reason._tag === "DeadlockError" || error.reason._tag === "SerializationError")
}

// Its failure is an SQL error like any other: a defect, below.
const planGenerically = (sql: SqlClient.SqlClient) => sql`set local plan_cache_mode = force_generic_plan`

class LockConflict extends Data.TaggedError("LockConflict")<{ readonly conflict: Cause.Cause<unknown> }> {}

export const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError>, R | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(Effect.andThen(planGenerically(sql), effect))
  }).pipe(
    // SQL failures are defects (a broken statement is our bug); lock conflicts among them are retried.
    Effect.catchTag("SqlError", Effect.die),
    Effect.catchCause((cause): Effect.Effect<never, Exclude<E, SqlError.SqlError> | LockConflict> =>
      isLockConflict(cause)
        ? Effect.fail(new LockConflict({ conflict: cause }))
        : Effect.failCause(cause as Cause.Cause<Exclude<E, SqlError.SqlError>>)),
    Effect.retry({
      while: (error) => error instanceof LockConflict,
      times: 3,
      schedule: Schedule.jittered(Schedule.exponential("10 millis"))
    }),
    Effect.catchIf(
      (error): error is LockConflict => error instanceof LockConflict,
      (error) => Effect.die(Cause.squash(error.conflict))
    )
  ) as Effect.Effect<A, Exclude<E, SqlError.SqlError>, R | SqlClient.SqlClient>
