import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { run, type TaskList, type WorkerEvents } from "graphile-worker"
import { EventEmitter } from "node:events"
import pg from "pg"
import { AppConfig } from "../src/platform/config.ts"
import { DatabaseUrl } from "../src/platform/database.ts"
import { type Heartbeat, WorkerHeartbeat } from "../src/platform/worker-heartbeat.ts"
import { quietWorkerLogger } from "../src/platform/migrator.ts"
import type { ServicesLive } from "../src/app/layers.ts"
import { crontab } from "./crontab.ts"
import { recordJobPermanentFailure, recordJobRun, registerJobTasks, registerReportSync, registerWebhookAttempts } from "../src/platform/metrics/jobs.ts"
import { sampleWorkerPool } from "../src/platform/metrics/process.ts"
import { startLiveness } from "./liveness.ts"
import { superviseRunner } from "./supervisor.ts"
import { parentOfJob } from "../src/platform/job-trace.ts"
import { ReportSyncJob } from "../reports/jobs.ts"
import { ExpireBookingJob } from "../src/enrollment/bookings/jobs.ts"
import { MaterializeEventOccurrencesJob } from "../src/schedule/events/jobs.ts"
import { SendMailJob } from "../src/platform/mail/jobs.ts"
import { OfferWaitlistPlacesJob } from "../src/enrollment/visits/jobs.ts"
import { DeliverWebhookJob, WebhookFanoutJob } from "../src/webhooks/jobs.ts"
import { deliverWebhookTask } from "./tasks/deliver_webhook.ts"
import { materializeEventOccurrencesTask } from "./tasks/materialize_event_occurrences.ts"
import { reportSyncTask } from "./tasks/report_sync.ts"
import { sendMailTask } from "./tasks/send_mail.ts"
import { webhookFanoutTask } from "./tasks/webhook_fanout.ts"
import { expireBookingTask } from "./tasks/expire_booking.ts"
import { ExpireWaitlistEntriesJob, expireWaitlistEntriesTask } from "./tasks/expire_waitlist_entries.ts"
import { offerWaitlistPlacesTask } from "./tasks/offer_waitlist_places.ts"
import { EmitUpcomingOccurrencesJob, emitUpcomingOccurrencesTask } from "./tasks/emit_upcoming_occurrences.ts"
import { PruneWebhookEventsJob, pruneWebhookEventsTask } from "./tasks/prune_webhook_events.ts"
import { EmitEndedPlansJob, emitEndedPlansTask } from "./tasks/emit_ended_plans.ts"
import { CancelAbandonedCartsJob, cancelAbandonedCartsTask } from "./tasks/cancel_abandoned_carts.ts"
import { PruneIdempotencyKeysJob, pruneIdempotencyKeysTask } from "./tasks/prune_idempotency_keys.ts"
import { BillMembershipsJob, billMembershipsTask } from "./tasks/bill_memberships.ts"
import { chargeMembershipPeriodTask } from "./tasks/charge_membership_period.ts"
import { ChargeMembershipPeriodJob } from "../src/billing/billing-runs/jobs.ts"
import { CreateSalePaysJob, CreateServicePaysJob } from "../src/billing/staff-pay/jobs.ts"
import { createSalePaysTask } from "./tasks/create_sale_pays.ts"
import { createServicePaysTask } from "./tasks/create_service_pays.ts"

/**
 * Every background job: one task a file under workers/tasks, registered here under its job's
 * name (a `defineJob` value: in the producing domain's jobs.ts, or in the task file for jobs
 * only the crontab enqueues). Jobs are enqueued with `graphile_worker.add_job` inside the
 * transaction of the write that causes them (src/platform/jobs.ts), so a rolled-back write
 * leaves no job behind. A task is an Effect on the service's layer graph; its payload arrives
 * as `unknown` and is decoded there with the job's Schema.
 */
export const tasks = {
  [SendMailJob.name]: sendMailTask,
  [WebhookFanoutJob.name]: webhookFanoutTask,
  [DeliverWebhookJob.name]: deliverWebhookTask,
  [ReportSyncJob.name]: reportSyncTask,
  [MaterializeEventOccurrencesJob.name]: materializeEventOccurrencesTask,
  [ExpireBookingJob.name]: expireBookingTask,
  [OfferWaitlistPlacesJob.name]: offerWaitlistPlacesTask,
  [ExpireWaitlistEntriesJob.name]: expireWaitlistEntriesTask,
  [EmitUpcomingOccurrencesJob.name]: emitUpcomingOccurrencesTask,
  [PruneWebhookEventsJob.name]: pruneWebhookEventsTask,
  [EmitEndedPlansJob.name]: emitEndedPlansTask,
  [CancelAbandonedCartsJob.name]: cancelAbandonedCartsTask,
  [PruneIdempotencyKeysJob.name]: pruneIdempotencyKeysTask,
  [BillMembershipsJob.name]: billMembershipsTask,
  [ChargeMembershipPeriodJob.name]: chargeMembershipPeriodTask,
  [CreateServicePaysJob.name]: createServicePaysTask,
  [CreateSalePaysJob.name]: createSalePaysTask
} satisfies Record<string, (payload: unknown) => Effect.Effect<void, unknown, WorkerServices>>

/** What tasks may use: everything the HTTP handlers have. */
type WorkerServices = Layer.Success<typeof ServicesLive> | AppConfig | SqlClient.SqlClient | DatabaseUrl

/**
 * graphile-worker's task list, each task run on the captured services; failures throw so the job
 * is retried. Each run is a span `job <task>` (a consumer span): its parent is the span that
 * enqueued the job when the payload carries one (src/platform/job-trace.ts), so a request's
 * jobs, and the jobs those enqueue, are in the request's trace; a crontab job starts its own.
 */
const makeTaskList = (services: Context.Context<WorkerServices>): TaskList =>
  Object.fromEntries(
    Object.entries(tasks).map(([name, task]: [string, (payload: unknown) => Effect.Effect<void, unknown, WorkerServices>]) => [
      name,
      (payload, helpers) => {
        const parent = parentOfJob(payload)
        return Effect.runPromiseWith(services)(
          task(payload).pipe(
            Effect.tapCause((cause) => Effect.logWarning("job failed", cause)),
            Effect.annotateLogs({ task: name, job_id: helpers.job.id, attempt: helpers.job.attempts }),
            Effect.withSpan(`job ${name}`, {
              kind: "consumer",
              root: parent === undefined,
              ...(parent === undefined ? {} : { parent }),
              attributes: { "job.task": name, "job.id": helpers.job.id, "job.attempt": helpers.job.attempts }
            })
          )
        )
      }
    ])
  )

/** What `/readyz` reads to tell a ticking worker loop from a stuck one (src/app/health/checks.ts). */
const trackHeartbeat = (events: WorkerEvents, heartbeat: Heartbeat) => {
  events.on("worker:getJob:start", () => void (heartbeat.lastTickAt = Date.now()))
  events.on("job:start", () => void heartbeat.jobsRunning++)
  events.on("job:complete", () => void (heartbeat.jobsRunning = Math.max(0, heartbeat.jobsRunning - 1)))
  events.on("pool:fatalError", ({ error }) => void (heartbeat.fatal = error instanceof Error ? error.message : String(error)))
}

/**
 * Job metrics (src/platform/metrics/jobs.ts): a run's duration from graphile-worker handing it
 * over to its end, by task and outcome; jobs out of attempts.
 */
const recordJobMetrics = (events: WorkerEvents) => {
  registerJobTasks(Object.keys(tasks))
  registerReportSync()
  registerWebhookAttempts()
  const runStartedAt = new Map<string, number>()
  events.on("job:start", ({ job }) => void runStartedAt.set(job.id, performance.now()))
  const ended = (job: { readonly id: string; readonly task_identifier: string }, outcome: "success" | "failure") => {
    const at = runStartedAt.get(job.id)
    runStartedAt.delete(job.id)
    recordJobRun(job.task_identifier, outcome, at === undefined ? 0 : (performance.now() - at) / 1000)
  }
  events.on("job:success", ({ job }) => ended(job, "success"))
  events.on("job:error", ({ job }) => ended(job, "failure"))
  events.on("job:failed", ({ job }) => recordJobPermanentFailure(job.task_identifier))
}

/** The worker's own node-postgres pool, so it closes only after the runner has stopped (and before PostgreSQL does). */
const acquireWorkerPool = (connectionString: string, size: number) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new pg.Pool({ connectionString, max: size, application_name: "studio-service worker" })
      pool.on("error", (error) => quietWorkerLogger.error(`worker pool: ${error.message}`))
      pool.on("connect", (client) => client.on("error", (error) => quietWorkerLogger.error(`worker client: ${error.message}`)))
      return pool
    }),
    (pool) => Effect.promise(() => pool.end())
  )

/**
 * The graphile-worker runner as a layer: started when the layer is built, stopped (waiting
 * for running jobs) when it closes. `npm start` runs it beside the HTTP server;
 * `npm run studio -- worker` runs it alone. A runner that loses PostgreSQL is replaced
 * (workers/supervisor.ts).
 */
export const WorkerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const connectionString = yield* DatabaseUrl
    const services = yield* Effect.context<WorkerServices>()
    const pgPool = yield* acquireWorkerPool(connectionString, config.workerConcurrency + 2)
    yield* Effect.acquireRelease(Effect.sync(() => sampleWorkerPool(pgPool)), (stop) => Effect.sync(stop))
    // Jobs of workers that died mid-job are released at start (and every minute), not in 4 hours.
    const log = (level: "info" | "error", message: string, fields: Record<string, unknown> = {}) =>
      void Effect.runForkWith(services)((level === "info" ? Effect.logInfo(message) : Effect.logError(message)).pipe(Effect.annotateLogs(fields)))
    const liveness = yield* Effect.acquireRelease(
      Effect.tryPromise(() => startLiveness(pgPool, connectionString, log)).pipe(Effect.orDie),
      (liveness) => Effect.promise(() => liveness.close())
    )
    const released = yield* Effect.tryPromise(() => liveness.sweep()).pipe(Effect.orDie)
    if (released.length > 0) log("info", "unlocked the jobs of dead workers", { worker_ids: released })
    const events: WorkerEvents = new EventEmitter()
    events.on("pool:create", ({ workerPool }) => liveness.register(workerPool.id))
    events.on("worker:create", ({ worker }) => liveness.register(worker.workerId))
    const heartbeat = yield* WorkerHeartbeat
    trackHeartbeat(events, heartbeat)
    yield* Effect.addFinalizer(() => Effect.sync(() => void (heartbeat.started = false)))
    recordJobMetrics(events)
    const start = () =>
      run({
        events,
        pgPool,
        concurrency: config.workerConcurrency,
        pollInterval: config.workerPollIntervalMs,
        noHandleSignals: true,
        logger: quietWorkerLogger,
        taskList: makeTaskList(services),
        crontab,
        // Unbatched (graphile-worker's default), a job's completion or failure that cannot be
        // written (PostgreSQL stopped) is an unawaited rejection that ends the process. Batched,
        // it shuts the pool down instead, which the supervisor replaces.
        preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } }
      })
    yield* Effect.acquireRelease(
      Effect.tryPromise(() => superviseRunner({ events, pgPool, start, heartbeat, log })).pipe(Effect.orDie),
      (supervised) => Effect.promise(() => supervised.stop())
    )
    heartbeat.started = true
    heartbeat.lastTickAt = Date.now()
    yield* Effect.logInfo("worker started").pipe(Effect.annotateLogs({ concurrency: config.workerConcurrency }))
  })
)
