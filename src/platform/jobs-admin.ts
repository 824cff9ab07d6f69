import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { makeWorkerUtils, type WorkerUtils } from "graphile-worker"
import { DatabaseUrl } from "./database.ts"
import { quietWorkerLogger } from "./migrator.ts"

/**
 * What `studio jobs` reads and does: graphile-worker's own tables (so every process sees the
 * same jobs), and its admin functions (`completeJobs`, `permanentlyFailJobs`, `rescheduleJobs`)
 * for every change, so a change never races a worker: they all skip a job a worker holds.
 */

export const JOB_STATES = ["queued", "running", "retrying", "permanently_failed"] as const
export type JobState = (typeof JOB_STATES)[number]

/**
 * A job's state, from graphile-worker's columns: held by a worker; out of attempts; waiting
 * after a failure (graphile-worker's retry, or a retry a task scheduled itself with
 * `enqueueJob(..., { lastError })`); else waiting for its first run (now or at its `run_at`).
 */
const stateOf = (sql: SqlClient.SqlClient) => sql.literal(`case
    when j.locked_at is not null then 'running'
    when j.attempts >= j.max_attempts then 'permanently_failed'
    when j.last_error is not null then 'retrying'
    else 'queued' end`)

export interface JobRow {
  readonly id: number
  readonly task: string
  readonly state: JobState
  readonly payload: unknown
  readonly attempts: number
  readonly max_attempts: number
  readonly last_error: string | null
  readonly run_at: Date
  readonly locked_by: string | null
  readonly locked_at: Date | null
  readonly key: string | null
  readonly created_at: Date
}

/** Counts by task and state; tasks with no job at all are the caller's zeros. */
export const countByTask = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<{ readonly task: string; readonly state: JobState; readonly n: number }>`
    select t.identifier as task, ${stateOf(sql)} as state, count(*)::int as n
    from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    group by 1, 2`
}).pipe(Effect.orDie)

const selectJobs = (sql: SqlClient.SqlClient) => sql`
  select j.id, t.identifier as task, ${stateOf(sql)} as state, j.payload, j.attempts, j.max_attempts, j.last_error,
         j.run_at, j.locked_by, j.locked_at, j.key, j.created_at
  from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id`

export const listJobs = (filter: { readonly task?: string; readonly states: ReadonlyArray<JobState>; readonly limit: number }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<JobRow>`
      select * from (${selectJobs(sql)}) jobs
      where state in ${sql.in(filter.states)}
        ${filter.task === undefined ? sql`` : sql`and task = ${filter.task}`}
      order by id
      limit ${filter.limit}`
  }).pipe(Effect.orDie)

export const findJob = (id: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<JobRow>`select * from (${selectJobs(sql)}) jobs where id = ${id}`
    return rows[0]
  }).pipe(Effect.orDie)

/** Subdomains of the businesses jobs name in their payloads (`business_id`). */
export const subdomainsOf = (businessIds: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    if (businessIds.length === 0) return new Map<number, string>()
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly id: number; readonly subdomain: string }>`
      select id, subdomain from businesses where id in ${sql.in([...new Set(businessIds)])}`
    return new Map(rows.map((row) => [row.id, row.subdomain]))
  }).pipe(Effect.orDie)

/** A webhook delivery as its own log tells it (the job says only when it runs next). */
export const deliveryOf = (businessId: number, deliveryId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      readonly id: number
      readonly status: string
      readonly attempt_count: number
      readonly last_status_code: number | null
      readonly next_attempt_at: Date | null
      readonly last_attempt_error: string | null
      readonly event_id: number
      readonly subscription_id: number
    }>`
      select d.id, d.status, d.attempt_count, d.last_status_code, d.next_attempt_at, d.event_id, d.subscription_id,
             (select a.error from webhook_delivery_attempts a
              where a.business_id = d.business_id and a.delivery_id = d.id order by a.attempt desc limit 1) as last_attempt_error
      from webhook_deliveries d where d.business_id = ${businessId} and d.id = ${deliveryId}`
    return rows[0]
  }).pipe(Effect.orDie)

/** graphile-worker's WorkerUtils on the service's database, released with the scope. */
export const workerUtils = Effect.acquireRelease(
  Effect.gen(function* () {
    const connectionString = yield* DatabaseUrl
    return yield* Effect.tryPromise(() => makeWorkerUtils({ connectionString, logger: quietWorkerLogger }))
  }).pipe(Effect.orDie),
  (utils: WorkerUtils) => Effect.promise(async () => await utils.release())
)

// ---------------------------------------------------------------------------------------------
// Secrets in payloads

const SECRET_NAME = /secret|token|password|passwd|key|authorization|signature/i

/** A link's query parameter named like a secret (a mailed reset link's `?token=`). */
const SECRET_PARAMETER = /([?&][a-z0-9_.-]*(?:secret|token|password|key|code)[a-z0-9_.-]*=)[^&#\s"'<>]+/gi

/**
 * The payload with the value of every field whose name says secret replaced, at any depth, and
 * the secret query parameters of links inside text (a queued mail's body) likewise.
 */
export const maskSecrets = (value: unknown): unknown => {
  if (typeof value === "string") return value.replace(SECRET_PARAMETER, "$1[masked]")
  if (Array.isArray(value)) return value.map(maskSecrets)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([name, field]) => [name, SECRET_NAME.test(name) && field !== null ? "[masked]" : maskSecrets(field)])
    )
  }
  return value
}
