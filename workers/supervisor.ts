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
 *
 * A pool that shuts down is not waited for to the end of its promise: in 0.18 a batcher that
 * failed twice (two completions lost while PostgreSQL stopped) counts its pending calls below
 * zero, its `release()` never resolves, and neither does the pool's promise nor the runner's; the
 * worker then sat idle for good. Its workers are done once it reports its shutdown complete
 * (graceful or forceful): that is when its ids are released and the next pool starts.
 */

export interface Supervised {
  /** Stops the current runner (waiting for its jobs) and the supervision. */
  readonly stop: () => Promise<void>
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Per pool: promises resolved once its workers are done (its shutdown reported complete). */
const trackDrained = (events: WorkerEvents) => {
  const drained = new Map<string, Array<() => void>>()
  const drainedOf = (poolId: string | undefined) =>
    new Promise<void>((resolve) => {
      if (poolId !== undefined) drained.set(poolId, [...(drained.get(poolId) ?? []), resolve])
    })
  const markDrained = ({ workerPool }: { readonly workerPool: { readonly id: string } }) => {
    for (const resolve of drained.get(workerPool.id) ?? []) resolve()
    drained.delete(workerPool.id)
  }
  events.on("pool:gracefulShutdown:complete", markDrained)
  events.on("pool:forcefulShutdown:complete", markDrained)
  events.on("pool:forcefulShutdown:error", markDrained)
  return { drainedOf, markDrained }
}

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
  const { drainedOf, markDrained } = trackDrained(events)
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
      const ended = await Promise.race([runner.promise.then(() => undefined, (error: unknown) => error), drainedOf(currentPoolId)])
      if (stopping) return
      // Stops the old runner's cron too when its promise hangs (a no-op when it has stopped).
      void runner.stop().catch(() => {})
      heartbeat.fatal ??= ended === undefined ? "the worker pool stopped" : messageOf(ended)
      log("error", "worker pool stopped; starting a new one when PostgreSQL answers", { error: heartbeat.fatal })
      await restartWhenReachable()
      if (stopping) return
    }
  })()

  return {
    stop: async () => {
      stopping = true
      const done = drainedOf(currentPoolId)
      await runner.stop().catch(() => {})
      await Promise.race([runner.promise.catch(() => {}), done])
      // The loop may still wait on a runner whose promise hangs.
      if (currentPoolId !== undefined) markDrained({ workerPool: { id: currentPoolId } })
      await supervised
    }
  }
}
