import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Effect, Layer, Runtime } from "effect"
import { CliError, CliOutput, Command } from "effect/cli"
import { app } from "./app/cli/app.ts"
import { business } from "./app/cli/business.ts"
import { citusPlanCommand } from "./app/cli/citus-plan.ts"
import { embedded } from "./app/cli/embedded.ts"
import { importCommand } from "./app/cli/import.ts"
import { jobs } from "./app/cli/jobs.ts"
import { migrate } from "./app/cli/migrate.ts"
import { reports } from "./app/cli/reports.ts"
import { revenueCategories } from "./app/cli/revenue-categories.ts"
import { pays } from "./app/cli/pays.ts"
import { seed } from "./app/cli/seed.ts"
import { serve } from "./app/cli/serve.ts"
import { sync } from "./app/cli/sync.ts"
import { token } from "./app/cli/token.ts"
import { webhooks } from "./app/cli/webhooks.ts"
import { worker } from "./app/cli/worker.ts"

/**
 * The operator CLI: `npm run studio -- <command>`. Every command runs on the one layer graph
 * (`BaseLive`, embedded PostgreSQL unless DATABASE_URL is set). Results go to stdout (JSON,
 * or the bare token of `token`, so `$(npm run -s studio -- token ...)` works); logs and
 * errors go to stderr. Bad input (unknown business, invalid e-mail or JSON, a refused import
 * document: one line per problem, with its path) ends with `error: ...` and exit code 1,
 * never with a stack trace.
 *
 * One command a file under src/app/cli/ (shared helpers in src/app/cli/support.ts); this file assembles
 * them and runs the program.
 */

const formatter: CliOutput.Formatter = {
  ...CliOutput.defaultFormatter({ colors: process.stdout.isTTY === true }),
  formatError: (error) => `error: ${error.message}`,
  formatErrors: (errors) => errors.map((error) => `error: ${error.message}`).join("\n")
}

/** Usage mistakes: the problem and a pointer to the help, on stderr (help itself goes to stdout). */
const presenter: CliOutput.Presenter = {
  present: (event) =>
    Effect.sync(() => {
      switch (event._tag) {
        case "Help":
          return void process.stdout.write(`${formatter.formatHelpDoc(event.helpDoc)}\n`)
        case "Version":
          return void process.stdout.write(`${formatter.formatVersion(event.name, event.version)}\n`)
        case "InvalidInvocation": {
          const command = ["npm run studio --", ...event.commandPath.slice(1), "--help"].join(" ")
          return void process.stderr.write(`${formatter.formatErrors(event.errors)}\n(see: ${command})\n`)
        }
      }
    })
}

const studio = Command.make("studio").pipe(
  Command.withDescription("Studio Service operator commands"),
  Command.withSubcommands([migrate, seed, business, importCommand, token, app, worker, serve, sync, reports, webhooks, jobs, revenueCategories, citusPlanCommand, pays, embedded])
)

// ---------------------------------------------------------------------------------------------
// Entry point

/** Failures already shown to the operator: exit code 1, nothing more printed by the runtime. */
class Shown extends Error {
  override readonly [Runtime.errorReported] = false
  override readonly [Runtime.errorExitCode] = 1
}

/**
 * Unexpected failures (a bug, or an unreachable database): one `error:` line with the
 * cause's message; the full cause only with LOG_LEVEL=debug.
 */
const reportUnexpected = (cause: Cause.Cause<unknown>) =>
  Effect.sync(() => {
    // Wrappers such as Effect.tryPromise's UnknownError say little; their causes say what broke.
    const messages: Array<string> = []
    for (let error: unknown = Cause.squash(cause), depth = 0; error !== undefined && depth < 5; depth++) {
      const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim()
      if (message && !/^An error occurred in /.test(message) && !messages.includes(message)) messages.push(message)
      error = error instanceof Error ? error.cause : undefined
    }
    process.stderr.write(`error: ${messages.join(": ") || "unexpected failure"}\n`)
    if ((process.env["LOG_LEVEL"] ?? "").toLowerCase() === "debug") process.stderr.write(`${Cause.pretty(cause)}\n`)
    else process.stderr.write("(set LOG_LEVEL=debug for details)\n")
  }).pipe(Effect.andThen(Effect.fail(new Shown())))

Command.run(studio, { version: "0.1.0" }).pipe(
  Effect.catchCause((cause): Effect.Effect<never, unknown> => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
    const error = Cause.squash(cause)
    // The CLI has already shown usage mistakes and user errors (and set their exit codes).
    if (CliError.isCliError(error)) return Effect.failCause(cause)
    return reportUnexpected(cause)
  }),
  Effect.provide(Layer.mergeAll(NodeServices.layer, CliOutput.layer(formatter), CliOutput.layerPresenter(presenter))),
  NodeRuntime.runMain
)
