import { Effect, Layer } from "effect"
import { Command } from "effect/cli"
import { WorkerLive } from "../../../workers/runner.ts"
import { WorkerProbesLive } from "../health/worker-probes.ts"
import { metricsListenerWith } from "../metrics-server.ts"
import { runUntilSignal, withServices } from "./support.ts"

export const worker = Command.make("worker", {}, () =>
  withServices(runUntilSignal(Layer.merge(WorkerLive, metricsListenerWith(WorkerProbesLive)), Effect.void))).pipe(
  Command.withDescription("Run only the background worker (graphile-worker), until SIGINT/SIGTERM; with METRICS_PORT, /metrics, /healthz and /readyz there")
)
