import { Effect } from "effect"
import { Command } from "effect/cli"
import { HttpServerLive } from "../http.ts"
import { AppConfig } from "../platform/config.ts"
import { runUntilSignal, withServices } from "./support.ts"

export const serve = Command.make("serve", {}, () =>
  withServices(
    runUntilSignal(
      HttpServerLive,
      AppConfig.use((config) =>
        Effect.logInfo("http server listening").pipe(Effect.annotateLogs({ host: config.host, port: config.port })))
    )
  )).pipe(Command.withDescription("Run only the HTTP server (no worker), until SIGINT/SIGTERM"))
