import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { tasks } from "../../../workers/runner.ts"
import {
  countByTask,
  deliveryOf,
  findJob,
  JOB_STATES,
  type JobRow,
  type JobState,
  listJobs,
  maskSecrets,
  subdomainsOf,
  workerUtils
} from "../../platform/jobs-admin.ts"
import { migrateDatabase } from "../../platform/startup.ts"
import { DeliverWebhookJob } from "../../webhooks/jobs.ts"
import { MAX_ATTEMPTS as DELIVERY_MAX_ATTEMPTS } from "../../webhooks/delivery.ts"
import { printJson, userError, withServices } from "./support.ts"

/**
 * `jobs list|show|retry|fail|reschedule|complete`: the background jobs as graphile-worker holds
 * them, read from its tables and changed only through its admin functions (which never touch a
 * job a worker holds), beside running servers and workers. Payload fields named like secrets
 * are masked; a job naming a business shows its subdomain.
 */

const FAILING: ReadonlyArray<JobState> = ["retrying", "permanently_failed"]

const businessIdOf = (payload: unknown): number | undefined => {
  const id = payload !== null && typeof payload === "object" ? (payload as Record<string, unknown>)["business_id"] : undefined
  return typeof id === "number" ? id : undefined
}

/** One job as the operator sees it: state, business, schedule, last error. */
const describe = (job: JobRow, subdomains: ReadonlyMap<number, string>) => {
  const businessId = businessIdOf(job.payload)
  return {
    id: job.id,
    task: job.task,
    state: job.state,
    business: businessId === undefined ? null : (subdomains.get(businessId) ?? `#${businessId} (deleted)`),
    attempts: job.attempts,
    max_attempts: job.max_attempts,
    last_error: job.last_error,
    run_at: job.run_at.toISOString(),
    locked_by: job.locked_by,
    locked_at: job.locked_at?.toISOString() ?? null
  }
}

const describeAll = (jobs: ReadonlyArray<JobRow>) =>
  Effect.map(subdomainsOf(jobs.flatMap((job) => businessIdOf(job.payload) ?? [])), (subdomains) =>
    jobs.map((job) => describe(job, subdomains)))

/** The job, unlocked: every admin function skips a job a worker holds, so say so rather than do nothing. */
const unlockedJob = (id: number) =>
  Effect.gen(function* () {
    const job = yield* findJob(id)
    if (job === undefined) return yield* Effect.fail(userError(`no job ${id} (a job that succeeded or was completed is gone)`))
    if (job.state === "running") {
      return yield* Effect.fail(userError(`job ${id} is running (locked by ${job.locked_by}); try again when it has finished`))
    }
    return job
  })

const idArgument = Argument.Int("id").pipe(Argument.withDescription("Id of the job (see `jobs list`)"))

const list = Command.make(
  "list",
  {
    task: Flag.optional(Flag.String("task")).pipe(Flag.withDescription("Only jobs of this task")),
    state: Flag.optional(Flag.Literals("state", JOB_STATES)).pipe(Flag.withDescription("Only jobs in this state")),
    limit: Flag.Int("limit").pipe(Flag.withDefault(100), Flag.withDescription("At most this many jobs listed"))
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        yield* migrateDatabase
        const counts = yield* countByTask
        const known = [...new Set([...Object.keys(tasks), ...counts.map((row) => row.task)])].sort()
        const byTask = known.map((task) => ({
          task,
          ...(Object.fromEntries(
            JOB_STATES.map((state) => [state, counts.find((row) => row.task === task && row.state === state)?.n ?? 0])
          ) as Record<JobState, number>),
          ...(task in tasks ? {} : { unknown_task: true })
        }))
        const jobs = yield* listJobs({
          ...(Option.isSome(flags.task) ? { task: flags.task.value.trim() } : {}),
          states: Option.isSome(flags.state) ? [flags.state.value] : Option.isSome(flags.task) ? JOB_STATES : FAILING,
          limit: Math.max(0, flags.limit)
        })
        yield* printJson({ tasks: byTask, jobs: yield* describeAll(jobs) })
      })
    )
).pipe(
  Command.withDescription(
    "Every task the worker knows with its jobs by state (queued, running, retrying, permanently_failed), then the failing jobs (or those --task/--state select)"
  )
)

const show = Command.make("show", { id: idArgument }, ({ id }) =>
  withServices(
    Effect.gen(function* () {
      yield* migrateDatabase
      const job = yield* findJob(id)
      if (job === undefined) return yield* Effect.fail(userError(`no job ${id} (a job that succeeded or was completed is gone)`))
      const [shown] = yield* describeAll([job])
      const businessId = businessIdOf(job.payload)
      const payload = job.payload as Record<string, unknown>
      const delivery =
        job.task === DeliverWebhookJob.name && businessId !== undefined && typeof payload["delivery_id"] === "number"
          ? yield* deliveryOf(businessId, payload["delivery_id"])
          : undefined
      yield* printJson({
        ...shown,
        key: job.key,
        created_at: job.created_at.toISOString(),
        payload: maskSecrets(job.payload),
        ...(delivery === undefined
          ? {}
          : {
              delivery: {
                id: delivery.id,
                event_id: delivery.event_id,
                webhook_id: delivery.subscription_id,
                status: delivery.status,
                attempts: delivery.attempt_count,
                max_attempts: DELIVERY_MAX_ATTEMPTS,
                last_status_code: delivery.last_status_code,
                last_error: delivery.last_attempt_error,
                next_attempt_at: delivery.next_attempt_at?.toISOString() ?? null
              }
            })
      })
    })
  )
).pipe(Command.withDescription("One job: state, business, payload (secrets masked), attempts, last error, next run, locked by"))

/** Run now; a job out of attempts gets one more. */
const retryJobs = (jobs: ReadonlyArray<JobRow>) =>
  Effect.gen(function* () {
    const utils = yield* workerUtils
    const runAt = new Date()
    const retried: Array<number> = []
    for (const job of jobs) {
      const extra = job.attempts >= job.max_attempts ? { maxAttempts: job.attempts + 1 } : {}
      const rows = yield* Effect.tryPromise(() => utils.rescheduleJobs([String(job.id)], { runAt, ...extra })).pipe(Effect.orDie)
      if (rows.length > 0) retried.push(job.id)
    }
    return retried
  })

const retry = Command.make(
  "retry",
  {
    id: Argument.optional(Argument.Int("id")).pipe(Argument.withDescription("Id of the job (or --task with --failed)")),
    task: Flag.optional(Flag.String("task")).pipe(Flag.withDescription("Every failing job of this task (with --failed)")),
    failed: Flag.Boolean("failed").pipe(Flag.withDefault(false), Flag.withDescription("Only failing jobs (retrying or permanently failed)"))
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        if (Option.isSome(flags.id) === Option.isSome(flags.task)) {
          return yield* Effect.fail(userError("give a job id, or --task T --failed"))
        }
        if (Option.isSome(flags.task) && !flags.failed) {
          return yield* Effect.fail(userError("--task retries only failing jobs: add --failed"))
        }
        yield* migrateDatabase
        const jobs = Option.isSome(flags.id)
          ? [yield* unlockedJob(flags.id.value)]
          : yield* listJobs({ task: Option.getOrThrow(flags.task).trim(), states: FAILING, limit: 10_000 })
        const retried = yield* retryJobs(jobs)
        if (Option.isSome(flags.id) && retried.length === 0) {
          return yield* Effect.fail(userError(`job ${flags.id.value} was taken by a worker meanwhile; see \`jobs show ${flags.id.value}\``))
        }
        yield* printJson({ retried, skipped_running: jobs.length - retried.length })
      })
    )
).pipe(Command.withDescription("Run a job now (one more attempt if it had none left), or every failing job of a task"))

const fail = Command.make(
  "fail",
  {
    id: idArgument,
    reason: Flag.String("reason").pipe(Flag.withDefault("failed by an operator (studio jobs fail)"), Flag.withDescription("Stored as the job's last error"))
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        yield* migrateDatabase
        yield* unlockedJob(flags.id)
        const utils = yield* workerUtils
        const rows = yield* Effect.tryPromise(() => utils.permanentlyFailJobs([String(flags.id)], flags.reason)).pipe(Effect.orDie)
        if (rows.length === 0) return yield* Effect.fail(userError(`job ${flags.id} was taken by a worker meanwhile`))
        const [shown] = yield* describeAll([(yield* findJob(flags.id))!])
        yield* printJson(shown)
      })
    )
).pipe(Command.withDescription("Fail a job permanently: it stays, with its reason, and never runs unless retried"))

const reschedule = Command.make(
  "reschedule",
  {
    id: idArgument,
    at: Flag.String("at").pipe(Flag.withDescription("When to run it: an ISO 8601 timestamp with its offset, e.g. 2026-12-01T09:00:00Z"))
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        const at = new Date(flags.at)
        if (!/(Z|[+-]\d\d:?\d\d)$/i.test(flags.at.trim()) || Number.isNaN(at.getTime())) {
          return yield* Effect.fail(userError(`--at: "${flags.at}" is not an ISO 8601 timestamp with an offset (e.g. 2026-12-01T09:00:00Z)`))
        }
        yield* migrateDatabase
        yield* unlockedJob(flags.id)
        const utils = yield* workerUtils
        const rows = yield* Effect.tryPromise(() => utils.rescheduleJobs([String(flags.id)], { runAt: at })).pipe(Effect.orDie)
        if (rows.length === 0) return yield* Effect.fail(userError(`job ${flags.id} was taken by a worker meanwhile`))
        const [shown] = yield* describeAll([(yield* findJob(flags.id))!])
        yield* printJson(shown)
      })
    )
).pipe(Command.withDescription("Move a job's next run to another time"))

const complete = Command.make("complete", { id: idArgument }, ({ id }) =>
  withServices(
    Effect.gen(function* () {
      yield* migrateDatabase
      yield* unlockedJob(id)
      const utils = yield* workerUtils
      const rows = yield* Effect.tryPromise(() => utils.completeJobs([String(id)])).pipe(Effect.orDie)
      if (rows.length === 0) return yield* Effect.fail(userError(`job ${id} was taken by a worker meanwhile`))
      yield* printJson({ completed: [id] })
    })
  )
).pipe(Command.withDescription("Remove a job as if it had succeeded, without running it"))

export const jobs = Command.make("jobs").pipe(
  Command.withDescription("See and steer the background jobs (graphile-worker): list, show, retry, fail, reschedule, complete"),
  Command.withSubcommands([list, show, retry, fail, reschedule, complete])
)
