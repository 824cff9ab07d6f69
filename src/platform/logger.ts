import { Layer, Logger, References } from "effect"
import { AppConfig } from "./config.ts"

/** JSON log lines on the console, at the configured LOG_LEVEL (debug, info, warn, error, none). */
export const LoggerLive = Layer.mergeAll(
  Logger.layer([Logger.consoleJson]),
  Layer.effect(References.MinimumLogLevel)(
    AppConfig.useSync((config) => {
      const level = config.logLevel.toLowerCase()
      return level === "debug" ? "Debug" : level === "warn" ? "Warn" : level === "error" ? "Error" : level === "none" ? "None" : "Info"
    })
  )
)
