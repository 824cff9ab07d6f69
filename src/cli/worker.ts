import { Effect, Layer } from "effect"
import { Command } from "effect/cli"
import { WorkerLive } from "../../workers/runner.ts"
import { MetricsListenerLive } from "../platform/metrics-server.ts"
import { runUntilSignal, withServices } from "./support.ts"

export const worker = Command.make("worker", {}, () =>
  withServices(runUntilSignal(Layer.merge(WorkerLive, MetricsListenerLive), Effect.void))).pipe(
  Command.withDescription("Run only the background worker (graphile-worker), until SIGINT/SIGTERM")
)
