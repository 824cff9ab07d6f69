import { Console, Effect, Layer, Option, Schema } from "effect"
import { CliError, GlobalFlag } from "effect/cli"
import { Console as NodeConsole } from "node:console"
import type { ImportError } from "../../tools/import/errors.ts"
import { Email } from "../../tools/import/records.ts"
import { ImportRepo } from "../../tools/import/repo.ts"
import { BaseLive } from "../layers.ts"
import { AppConfig, AppConfigLive, readAppConfig } from "../../platform/config.ts"
import { migrateDatabase } from "../../platform/startup.ts"

/** What every command of the operator CLI (src/cli.ts) shares: output, errors, the layer graph, input checks. */

// ---------------------------------------------------------------------------------------------
// Output and errors

/** The logger of BaseLive writes through Effect's Console: pointed at stderr, stdout stays clean. */
const stderrConsole = new NodeConsole({ stdout: process.stderr, stderr: process.stderr })

export const printLine = (text: string) => Effect.sync(() => void process.stdout.write(`${text}\n`))
export const printJson = (value: unknown) => printLine(JSON.stringify(value, null, 2))

/** A problem with what the operator asked for: shown as one `error:` line, exit code 1. */
export const userError = (message: string) => new CliError.UserError({ cause: message, userMessage: message })

export const importProblems = (error: ImportError, what: string, rename: (line: string) => string = (line) => line) =>
  userError(
    error.reason === "invalid_document" && error.messages.length > 1
      ? `${what} (${error.messages.length} problems):\n${error.messages.map((m) => `  - ${rename(m)}`).join("\n")}`
      : error.reason === "invalid_document"
        ? `${what}: ${error.messages.map(rename).join("")}`
        : error.messages.map(rename).join("; ")
  )

/**
 * Runs a command body on the service's layer graph, logs on stderr. Building the graph
 * starts the embedded PostgreSQL when DATABASE_URL is unset; it stops when the body ends.
 */
export const withServices = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    // `--log-level` overrides LOG_LEVEL: BaseLive's logger takes its level from the config.
    const level = yield* GlobalFlag.LogLevel
    const config = Option.match(level, {
      onNone: () => AppConfigLive,
      onSome: (level) =>
        Layer.effect(AppConfig)(Effect.map(Effect.orDie(readAppConfig), (config) => ({ ...config, logLevel: level.toLowerCase() })))
    })
    return yield* body.pipe(Effect.scoped, Effect.provide(BaseLive(config)))
  }).pipe(Effect.provideService(Console.Console, stderrConsole))

// ---------------------------------------------------------------------------------------------
// Input checks shared by commands

const decodeEmail = Schema.decodeUnknownOption(Email)

export const checkEmail = (flag: string, value: string) =>
  Option.isSome(decodeEmail(value.trim()))
    ? Effect.succeed(value.trim())
    : Effect.fail(userError(`${flag}: "${value}" is not an e-mail address`))

export const findBusiness = (subdomain: string) =>
  ImportRepo.use((repo) => repo.findBusinessId({ subdomain: subdomain.trim().toLowerCase() })).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.fail(userError(`no business with subdomain "${subdomain}"`)),
        onSome: Effect.succeed
      })
    )
  )


/** Runs `layer` after migrating, until SIGINT/SIGTERM interrupts the program. */
export const runUntilSignal = <E, R>(layer: Layer.Layer<never, E, R>, started: Effect.Effect<void, never, AppConfig>) =>
  Effect.gen(function* () {
    yield* migrateDatabase
    yield* Layer.build(layer)
    yield* started
    return yield* Effect.never
  })
