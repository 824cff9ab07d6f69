import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { run, type TaskList } from "graphile-worker"
import pg from "pg"
import { AppConfig } from "../src/platform/config.ts"
import { DatabaseUrl } from "../src/platform/database.ts"
import { quietWorkerLogger } from "../src/platform/migrator.ts"
import type { ServicesLive } from "../src/layers.ts"
import { crontab } from "./crontab.ts"
import { sendMailTask } from "./tasks/send_mail.ts"

/**
 * Every background job: one task a file under workers/tasks, registered here by name. Jobs are
 * enqueued with `graphile_worker.add_job` inside the transaction of the write that causes
 * them (src/platform/jobs.ts), so a rolled-back write leaves no job behind. A task is an
 * Effect on the service's layer graph; its payload arrives as `unknown` and is decoded there.
 */
export const tasks = {
  send_mail: sendMailTask
} satisfies Record<string, (payload: unknown) => Effect.Effect<void, unknown, WorkerServices>>

/** What tasks may use: everything the HTTP handlers have. */
type WorkerServices = Layer.Success<typeof ServicesLive> | AppConfig | SqlClient.SqlClient | DatabaseUrl

/** graphile-worker's task list, each task run on the captured services; failures throw so the job is retried. */
const makeTaskList = (services: Context.Context<WorkerServices>): TaskList =>
  Object.fromEntries(
    Object.entries(tasks).map(([name, task]) => [
      name,
      (payload, helpers) =>
        Effect.runPromiseWith(services)(
          task(payload).pipe(
            Effect.tapCause((cause) => Effect.logWarning("job failed", cause)),
            Effect.annotateLogs({ task: name, job_id: helpers.job.id, attempt: helpers.job.attempts })
          )
        )
    ])
  )

/**
 * The graphile-worker runner as a layer: started when the layer is built, stopped (waiting
 * for running jobs) when it closes. `npm start` runs it beside the HTTP server;
 * `npm run studio -- worker` runs it alone.
 */
export const WorkerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const connectionString = yield* DatabaseUrl
    const services = yield* Effect.context<WorkerServices>()
    // Our own pool, so it closes only after the runner has stopped (and before PostgreSQL does).
    const pgPool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new pg.Pool({ connectionString, max: config.workerConcurrency + 2 })
        pool.on("error", (error) => quietWorkerLogger.error(`worker pool: ${error.message}`))
        pool.on("connect", (client) => client.on("error", (error) => quietWorkerLogger.error(`worker client: ${error.message}`)))
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
          taskList: makeTaskList(services),
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
