import { randomInt } from "node:crypto"
import type pg from "pg"
import { connectClient } from "../src/platform/pg-client.ts"

/**
 * Releasing the jobs of dead workers. graphile-worker leaves a job locked by a worker that
 * died mid-job (SIGKILL, OOM, a lost machine) until its stale-lock sweep, four hours later;
 * a webhook being delivered at that moment would wait that long. So each worker process:
 *
 * - holds a session advisory lock (LOCK_CLASS, its random process key) on a connection of
 *   its own for as long as it lives: PostgreSQL releases it the moment the process's
 *   connection closes, however the process ended;
 * - records each graphile-worker worker id it runs in `job_worker_registrations`;
 * - sweeps at start and every minute: a registered worker whose process lock it can take
 *   (`pg_try_advisory_xact_lock`) is dead, so its jobs are unlocked
 *   (`graphile_worker.force_unlock_workers`) and run again at once, and its rows go.
 *
 * Worker ids nobody registered (another deployment's workers) are never touched. A process
 * that loses its lock connection re-takes the lock and re-registers; meanwhile another
 * process may take it for dead and run its job a second time: delivery is at-least-once.
 * The lock needs a session that lives as long as the process (no transaction-mode pooler).
 */

/** classid of the advisory locks (two-int key space: no clash with bigint-keyed locks). */
export const LOCK_CLASS = 1464814667
const SWEEP_INTERVAL_MS = 60_000
const RECONNECT_DELAY_MS = 1_000

export interface Liveness {
  readonly processKey: number
  /** Records a worker id of this process (graphile-worker's `worker:create` and `pool:create`). */
  readonly register: (workerId: string) => void
  /** Unlocks the jobs of dead processes' workers; returns those worker ids. */
  readonly sweep: () => Promise<ReadonlyArray<string>>
  readonly close: () => Promise<void>
}

export const startLiveness = async (
  pool: pg.Pool,
  connectionString: string,
  log: (level: "info" | "error", message: string, fields?: Record<string, unknown>) => void
): Promise<Liveness> => {
  const workerIds = new Set<string>()
  let closed = false
  let client: pg.Client | undefined

  const lockConnection = async (key: number | undefined): Promise<number> => {
    for (;;) {
      const candidate = key ?? randomInt(1, 2 ** 31 - 1)
      const next = await connectClient({ connectionString, application_name: `studio-worker:${candidate}` })
      const { rows } = await next.query("select pg_try_advisory_lock($1, $2) as ok", [LOCK_CLASS, candidate])
      if (rows[0]?.ok === true) {
        client = next
        next.on("end", () => void (!closed && reconnect()))
        return candidate
      }
      await next.end().catch(() => {})
      // Taken: another live process drew the same key (or a sweeper holds it a moment).
      if (key !== undefined) await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS))
    }
  }

  const registerAll = (ids: Iterable<string>) =>
    Promise.all(
      [...ids].map((workerId) =>
        pool.query(
          `insert into job_worker_registrations (worker_id, process_lock_key) values ($1, $2)
           on conflict (worker_id) do update set process_lock_key = excluded.process_lock_key`,
          [workerId, processKey]
        )
      )
    )

  const reconnect = async () => {
    client = undefined
    log("error", "worker liveness connection lost; reconnecting")
    while (!closed) {
      try {
        await lockConnection(processKey)
        await registerAll(workerIds)
        log("info", "worker liveness connection restored")
        return
      } catch {
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS))
      }
    }
  }

  const processKey = await lockConnection(undefined)

  const sweep = async (): Promise<ReadonlyArray<string>> => {
    const connection = await pool.connect()
    try {
      await connection.query("begin")
      const { rows } = await connection.query<{ worker_id: string }>(
        `select worker_id from job_worker_registrations
         where process_lock_key <> $2 and pg_try_advisory_xact_lock($1, process_lock_key)`,
        [LOCK_CLASS, processKey]
      )
      const dead = rows.map((row) => row.worker_id)
      if (dead.length > 0) {
        await connection.query("select graphile_worker.force_unlock_workers($1::text[])", [dead])
        await connection.query("delete from job_worker_registrations where worker_id = any($1::text[])", [dead])
      }
      await connection.query("commit")
      return dead
    } catch (error) {
      await connection.query("rollback").catch(() => {})
      throw error
    } finally {
      connection.release()
    }
  }

  const timer = setInterval(() => {
    sweep().then(
      (dead) => dead.length > 0 && log("info", "unlocked the jobs of dead workers", { worker_ids: dead }),
      (error: unknown) => log("error", `worker liveness sweep failed: ${error instanceof Error ? error.message : String(error)}`)
    )
  }, SWEEP_INTERVAL_MS)
  timer.unref()

  return {
    processKey,
    register: (workerId) => {
      workerIds.add(workerId)
      registerAll([workerId]).catch((error: unknown) =>
        log("error", `cannot register worker ${workerId}: ${error instanceof Error ? error.message : String(error)}`))
    },
    sweep,
    close: async () => {
      closed = true
      clearInterval(timer)
      await pool
        .query("delete from job_worker_registrations where process_lock_key = $1", [processKey])
        .catch(() => {})
      await client?.end().catch(() => {})
    }
  }
}
