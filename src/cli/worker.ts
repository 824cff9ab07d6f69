import { Effect } from "effect"
import { Command } from "effect/cli"
import { WorkerLive } from "../../workers/runner.ts"
import { runUntilSignal, withServices } from "./support.ts"

export const worker = Command.make("worker", {}, () =>
  withServices(runUntilSignal(WorkerLive, Effect.void))).pipe(
  Command.withDescription("Run only the background worker (graphile-worker), until SIGINT/SIGTERM")
)
