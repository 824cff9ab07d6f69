import type { Runner, WorkerEvents } from "graphile-worker"
import type pg from "pg"
import type { Heartbeat } from "../src/platform/worker-heartbeat.ts"

/**
 * Keeps a graphile-worker runner going across PostgreSQL outages.
 *
 * graphile-worker 0.18 locks a job with `get_job` (locked_by = the pool's id) and unlocks it with
 * `complete_jobs`/`fail_jobs`; a job whose lock or end was written but whose answer never came
 * back (the connection dropped) stays locked by that id until the 4-hour stale-lock sweep, while
 * the pool carries on without it: the job is lost for hours. Two ways in:
 *
 * - the pool cannot record a job's end: it shuts itself down (its batcher gives up on the first
 *   error: `BATCH_RETRY_OPTIONS` are never used, the retry loop breaks at once);
 * - `get_job` fails with a connection error: the pool keeps polling, but the lock may have been
 *   committed just before the connection went (a job locked by a live pool that never runs it).
 *
 * So after either, the pool is replaced: the old one stops gracefully (its running jobs end), and
 * once PostgreSQL answers, every id it locked jobs under is released with
 * `force_unlock_workers` and a new pool starts under new ids. A job whose end was lost runs
 * again (tasks are idempotent; a webhook may be re-sent with its `webhook-id`: at-least-once).
 */

export interface Supervised {
  /** Stops the current runner (waiting for its jobs) and the supervision. */
  readonly stop: () => Promise<void>
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

export const superviseRunner = async (options: {
  readonly events: WorkerEvents
  readonly pgPool: pg.Pool
  readonly start: () => Promise<Runner>
  readonly heartbeat: Heartbeat
  readonly log: (level: "info" | "error", message: string, fields?: Record<string, unknown>) => void
  readonly retryDelayMs?: number
}): Promise<Supervised> => {
  const { events, pgPool, heartbeat, log } = options
  const retryDelayMs = options.retryDelayMs ?? 1_000
  // The ids the current pool (and those before it, until released) lock jobs under.
  let lockIds: Array<string> = []
  let currentPoolId: string | undefined
  let replacing = false
  let stopping = false
  events.on("pool:create", ({ workerPool }) => {
    currentPoolId = workerPool.id
    lockIds.push(workerPool.id)
  })
  events.on("worker:create", ({ worker }) => void lockIds.push(worker.workerId))

  let runner = await options.start()
  /** A connection lost under the current pool: it may hold locks it does not know of. */
  const replace = (poolId: string, error: unknown) => {
    if (stopping || replacing || poolId !== currentPoolId) return
    replacing = true
    heartbeat.fatal = `PostgreSQL connection lost (${messageOf(error)}); replacing the worker pool`
    void runner.stop().catch(() => {})
  }
  events.on("worker:getJob:error", ({ worker, error }) => replace(worker.workerPool.id, error))
  events.on("pool:listen:error", ({ workerPool, error }) => replace(workerPool.id, error))

  const restartWhenReachable = async () => {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs))
      if (stopping) return
      try {
        const dead = lockIds
        await pgPool.query("select graphile_worker.force_unlock_workers($1::text[])", [dead])
        lockIds = lockIds.filter((id) => !dead.includes(id))
        replacing = false
        runner = await options.start()
        heartbeat.fatal = undefined
        log("info", "worker pool restarted", { released_worker_ids: dead })
        return
      } catch (error) {
        heartbeat.fatal = messageOf(error)
      }
    }
  }

  const supervised = (async () => {
    for (;;) {
      const ended = await runner.promise.then(() => undefined, (error: unknown) => error)
      if (stopping) return
      heartbeat.fatal ??= ended === undefined ? "the worker pool stopped" : messageOf(ended)
      log("error", "worker pool stopped; starting a new one when PostgreSQL answers", { error: heartbeat.fatal })
      await restartWhenReachable()
      if (stopping) return
    }
  })()

  return {
    stop: async () => {
      stopping = true
      await runner.stop().catch(() => {})
      await runner.promise.catch(() => {})
      await supervised
    }
  }
}
