import { Effect, Layer } from "effect"
import { run, type TaskList } from "graphile-worker"
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
    const runner = yield* Effect.acquireRelease(
      Effect.tryPromise(() =>
        run({
          connectionString,
          concurrency: config.workerConcurrency,
          pollInterval: config.workerPollIntervalMs,
          noHandleSignals: true,
          logger: quietWorkerLogger,
          taskList,
          crontab
        })
      ).pipe(Effect.orDie),
      (runner) => Effect.promise(() => runner.stop())
    )
    yield* Effect.logInfo("worker started").pipe(Effect.annotateLogs({ concurrency: config.workerConcurrency }))
    return runner
  })
)
