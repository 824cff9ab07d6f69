import { Config, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { HttpServerLive } from "../http.ts"
import { isClusterChild, serveProcesses } from "../../platform/cluster.ts"
import { AppConfig } from "../../platform/config.ts"
import { MetricsListenerLive } from "../metrics-server.ts"
import { runUntilSignal, userError, withServices } from "./support.ts"

/** One HTTP process (also each child of `--processes N`). */
const serveOne = withServices(
  runUntilSignal(
    Layer.merge(HttpServerLive, MetricsListenerLive),
    AppConfig.use((config) =>
      Effect.logInfo("http server listening").pipe(Effect.annotateLogs({ host: config.host, port: config.port })))
  )
)

export const serve = Command.make(
  "serve",
  {
    processes: Flag.Int("processes").pipe(
      Flag.optional,
      Flag.withDescription("HTTP processes on the one port (default: WEB_CONCURRENCY, else 1); a dead one is replaced")
    )
  },
  ({ processes }) =>
    Effect.gen(function* () {
      if (isClusterChild()) return yield* serveOne
      const fromEnv = yield* Config.Int("WEB_CONCURRENCY").pipe(Config.withDefault(1), Effect.orElseSucceed(() => 0))
      const count = Option.getOrElse(processes, () => fromEnv)
      if (!Number.isInteger(count) || count < 1 || count > 64) {
        return yield* Effect.fail(userError("--processes (or WEB_CONCURRENCY): a whole number from 1 to 64"))
      }
      if (count === 1) return yield* serveOne
      return yield* serveProcesses(count)
    })
).pipe(Command.withDescription("Run only the HTTP server (no worker), until SIGINT/SIGTERM; --processes N runs N of them on one port"))
