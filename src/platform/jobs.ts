import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The one way to enqueue a background job: `graphile_worker.add_job` through the SQL client,
 * so inside `sql.withTransaction` the job commits or rolls back with the write that caused it.
 * Tasks live in workers/tasks (one a file) and decode their payload with a Schema.
 */
export interface JobOptions {
  /** Run no earlier than this instant (booking expiry, scheduled deliveries). */
  readonly runAt?: Date
  /** At most one pending job per key: a new add replaces the pending one. */
  readonly jobKey?: string
  readonly maxAttempts?: number
}

export const enqueueJob = (task: string, payload: unknown, options: JobOptions = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Only the id comes back: the job row's composite type has no binary codec in the driver.
    yield* sql`select (graphile_worker.add_job(
      ${task},
      ${JSON.stringify(payload)}::json,
      run_at => ${Option.getOrNull(Option.fromNullishOr(options.runAt))}::timestamptz,
      job_key => ${options.jobKey ?? null}::text,
      max_attempts => ${options.maxAttempts ?? 25}::int
    )).id`
  }).pipe(Effect.orDie, Effect.withSpan("Jobs.enqueue", { attributes: { task } }))
