import { Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { currentTraceparent, withTraceContext } from "./job-trace.ts"

/**
 * The one way to enqueue a background job: `graphile_worker.add_job` through the SQL client,
 * so inside `sql.withTransaction` the job commits or rolls back with the write that caused it.
 * Tasks live in workers/tasks (one a file) and decode their payload with their job's Schema.
 */

/** A payload Schema a job can carry: no services needed to encode or decode it. */
export type JobPayloadSchema = Schema.Codec<any, any, never, never>

/**
 * A background job: its task name and payload, declared once. The producer enqueues it with
 * `enqueueJob`, which takes only a payload of the Schema's type; the task (workers/tasks/<name>.ts)
 * decodes with the same Schema and registers under the same name (workers/runner.ts). A job a
 * domain enqueues is defined in that domain's `jobs.ts`, so domain and task both import it
 * without an arrow pointing up from src/ to workers/.
 */
export interface JobDefinition<Name extends string = string, Payload extends JobPayloadSchema = JobPayloadSchema> {
  readonly name: Name
  readonly payload: Payload
  /** The task's side: the payload as graphile-worker hands it over; one it cannot decode is a defect. */
  readonly decode: (payload: unknown) => Effect.Effect<Payload["Type"]>
}

export const defineJob = <const Name extends string, Payload extends JobPayloadSchema>(
  name: Name,
  payload: Payload
): JobDefinition<Name, Payload> => {
  const decode = Schema.decodeUnknownEffect(payload)
  return { name, payload, decode: (input) => Effect.orDie(decode(input)) }
}

export interface JobOptions {
  /** Run no earlier than this instant (booking expiry, scheduled deliveries). */
  readonly runAt?: Date
  /** At most one pending job per key: a new add replaces the pending one. */
  readonly jobKey?: string
  readonly maxAttempts?: number
  /**
   * Why this job exists again: the failure of the attempt that scheduled it. Stored as the job's
   * `last_error`, so graphile-worker's own tables (and `studio jobs`, and the metrics) show a
   * retry the task schedules itself (webhook deliveries) as failing, like one graphile-worker schedules.
   */
  readonly lastError?: string
}

export const enqueueJob = <Payload extends JobPayloadSchema>(
  job: JobDefinition<string, Payload>,
  payload: Payload["Type"],
  options: JobOptions = {}
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const encoded = yield* Schema.encodeEffect(job.payload)(payload)
    // The run continues this trace (src/platform/job-trace.ts); nothing is added with export off.
    const carried = withTraceContext(encoded, yield* currentTraceparent)
    // Only the id comes back: the job row's composite type has no binary codec in the driver.
    const added = yield* sql<{ readonly id: number }>`select (graphile_worker.add_job(
      ${job.name},
      ${JSON.stringify(carried)}::json,
      run_at => ${Option.getOrNull(Option.fromNullishOr(options.runAt))}::timestamptz,
      job_key => ${options.jobKey ?? null}::text,
      max_attempts => ${options.maxAttempts ?? 25}::int
    )).id`
    // add_job has no last_error parameter. A second statement: one beside add_job would not see
    // the row add_job inserts (same snapshot). Unlocked and uncommitted, the row is still ours.
    if (options.lastError !== undefined && added[0] !== undefined) {
      yield* sql`update graphile_worker._private_jobs set last_error = ${options.lastError} where id = ${added[0].id}`
    }
  }).pipe(Effect.orDie, Effect.withSpan("Jobs.enqueue", { attributes: { task: job.name } }))
