import { Effect, Layer } from "effect"
import { run, type TaskList } from "graphile-worker"
import pg from "pg"
import { AppConfig } from "../src/platform/config.ts"
import { DatabaseUrl } from "../src/platform/database.ts"
import { quietWorkerLogger } from "../src/platform/migrator.ts"
import { crontab } from "./crontab.ts"

/**
 * Every background job: one task a file under workers/tasks, registered here. Jobs are
 * enqueued with `graphile_worker.add_job` inside the transaction of the write that causes
 * them (src/platform/jobs.ts), so a rolled-back write leaves no job behind.
 */
export const taskList: TaskList = {}

/**
 * The graphile-worker runner as a layer: started when the layer is built, stopped (waiting
 * for running jobs) when it closes. `npm start` runs it beside the HTTP server;
 * `npm run studio -- worker` runs it alone.
 */
export const WorkerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const connectionString = yield* DatabaseUrl
    // Our own pool, so it closes only after the runner has stopped (and before PostgreSQL does).
    const pgPool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new pg.Pool({ connectionString, max: config.workerConcurrency + 2 })
        pool.on("error", (error) => quietWorkerLogger.error(`worker pool: ${error.message}`))
        return pool
      }),
      (pool) => Effect.promise(() => pool.end())
    )
    const runner = yield* Effect.acquireRelease(
      Effect.tryPromise(() =>
        run({
          pgPool,
          concurrency: config.workerConcurrency,
          pollInterval: config.workerPollIntervalMs,
          noHandleSignals: true,
          logger: quietWorkerLogger,
          taskList,
          crontab
        })
      ).pipe(Effect.orDie),
      (runner) => Effect.promise(async () => {
        await runner.stop()
        await runner.promise.catch(() => {})
      })
    )
    yield* Effect.logInfo("worker started").pipe(Effect.annotateLogs({ concurrency: config.workerConcurrency }))
    return runner
  })
)
