import { Context, Effect, Layer } from "effect"

/**
 * Whether this process's graphile-worker loop is alive, for `/readyz`. The runner
 * (workers/runner.ts) marks it started and records each look for a job (`worker:getJob:start`,
 * every poll interval when idle, after each job when busy) and the jobs in flight; a process
 * that runs no worker leaves it unstarted and `/readyz` has no worker check.
 */
export interface Heartbeat {
  started: boolean
  /** Date.now() of the last look for a job. */
  lastTickAt: number
  jobsRunning: number
  /** graphile-worker's last fatal error, when the pool has died. */
  fatal: string | undefined
}

export class WorkerHeartbeat extends Context.Service<WorkerHeartbeat, Heartbeat>()("studio/WorkerHeartbeat") {}

export const WorkerHeartbeatLive = Layer.effect(WorkerHeartbeat)(
  Effect.sync((): Heartbeat => ({ started: false, lastTickAt: 0, jobsRunning: 0, fatal: undefined }))
)
