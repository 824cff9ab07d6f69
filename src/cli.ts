import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Console, Effect, Layer, Option, Runtime, Schema } from "effect"
import { Argument, CliError, CliOutput, Command, Flag, GlobalFlag } from "effect/cli"
import { Console as NodeConsole } from "node:console"
import * as fs from "node:fs/promises"
import { Applications } from "./auth/applications.ts"
import { isOwner } from "./auth/policies.ts"
import { AccessTokens, type StaffRole } from "./auth/tokens.ts"
import { BusinessRepo } from "./business/repo.ts"
import { seedScale } from "./demo/scale.ts"
import { seedDemo } from "./demo/seed.ts"
import { HttpServerLive } from "./http.ts"
import type { ImportError } from "./import/errors.ts"
import { Email, type ImportDocumentInput } from "./import/model.ts"
import * as ImportRepo from "./import/repo.ts"
import { importBusiness } from "./import/service.ts"
import { BaseLive } from "./layers.ts"
import { AppConfig, AppConfigLive, readAppConfig } from "./platform/config.ts"
import { ReportsRepo } from "../reports/repo.ts"
import { migrateDatabase } from "./platform/startup.ts"
import { LOCALES } from "./shared/locale.ts"
import { WebhooksRepo } from "./webhooks/repo.ts"
import { setWebhooksFeature } from "./webhooks/service.ts"
import { WorkerLive } from "../workers/runner.ts"
import { runReportSync } from "../reports/sync/run.ts"

/**
 * The operator CLI: `npm run studio -- <command>`. Every command runs on the one layer graph
 * (`BaseLive`, embedded PostgreSQL unless DATABASE_URL is set). Results go to stdout (JSON,
 * or the bare token of `token`, so `$(npm run -s studio -- token ...)` works); logs and
 * errors go to stderr. Bad input (unknown business, invalid e-mail or JSON, a refused import
 * document: one line per problem, with its path) ends with `error: ...` and exit code 1,
 * never with a stack trace.
 */

// ---------------------------------------------------------------------------------------------
// Output and errors

/** The logger of BaseLive writes through Effect's Console: pointed at stderr, stdout stays clean. */
const stderrConsole = new NodeConsole({ stdout: process.stderr, stderr: process.stderr })

const printLine = (text: string) => Effect.sync(() => void process.stdout.write(`${text}\n`))
const printJson = (value: unknown) => printLine(JSON.stringify(value, null, 2))

/** A problem with what the operator asked for: shown as one `error:` line, exit code 1. */
const userError = (message: string) => new CliError.UserError({ cause: message, userMessage: message })

const importProblems = (error: ImportError, what: string, rename: (line: string) => string = (line) => line) =>
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
const withServices = <A, E, R>(body: Effect.Effect<A, E, R>) =>
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

// ---------------------------------------------------------------------------------------------
// Input checks shared by commands

const decodeEmail = Schema.decodeUnknownOption(Email)

const checkEmail = (flag: string, value: string) =>
  Option.isSome(decodeEmail(value.trim()))
    ? Effect.succeed(value.trim())
    : Effect.fail(userError(`${flag}: "${value}" is not an e-mail address`))

const findBusiness = (subdomain: string) =>
  ImportRepo.findBusinessId(subdomain.trim().toLowerCase()).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.fail(userError(`no business with subdomain "${subdomain}"`)),
        onSome: Effect.succeed
      })
    )
  )

// ---------------------------------------------------------------------------------------------
// Commands

const migrate = Command.make("migrate", {}, () =>
  withServices(
    Effect.gen(function* () {
      const applied = yield* migrateDatabase
      yield* printJson({ applied })
    })
  )).pipe(Command.withDescription("Apply pending database migrations (ours, then graphile-worker's)"))

const seedDemoCommand = Command.make("demo", {}, () =>
  withServices(
    Effect.gen(function* () {
      yield* migrateDatabase
      const demo = yield* seedDemo
      yield* printJson({
        subdomain: demo.subdomain,
        client_id: demo.clientId,
        owner_token: demo.ownerToken,
        client_token: demo.clientToken,
        password: demo.password
      })
    })
  )).pipe(
  Command.withDescription(
    "Create the demo business (subdomain demo), its OAuth app demo-app and tokens for owner@demo.test and client@demo.test; " +
      "does nothing but print the tokens when it exists"
  )
)

const seedScaleCommand = Command.make(
  "scale",
  {
    enrollments: Flag.Int("enrollments").pipe(Flag.withDescription("About how many enrollments (visits and waitlist entries) to create")),
    businesses: Flag.optional(Flag.Int("businesses")).pipe(
      Flag.withDescription("How many businesses (default: one per 250,000 enrollments, 1 to 40)")
    ),
    years: Flag.Int("years").pipe(Flag.withDefault(3), Flag.withDescription("Years of history, up to four weeks from now (default: 3)"))
  },
  ({ enrollments, businesses, years }) =>
    withServices(
      Effect.gen(function* () {
        if (enrollments < 1 || enrollments > 100_000_000) return yield* Effect.fail(userError("--enrollments must be between 1 and 100000000"))
        if (years < 1 || years > 20) return yield* Effect.fail(userError("--years must be between 1 and 20"))
        const count = Option.getOrUndefined(businesses)
        if (count !== undefined && (count < 1 || count > 1000)) return yield* Effect.fail(userError("--businesses must be between 1 and 1000"))
        yield* migrateDatabase
        yield* printJson(yield* seedScale({ enrollments, businesses: count, years }))
      })
    )
).pipe(
  Command.withDescription(
    "Create businesses scale-1, scale-2, ... with years of classes, clients and enrollments (skewed popularity, seasons, churn), " +
      "for the report benchmark; each run adds new businesses"
  )
)

const seed = Command.make("seed").pipe(
  Command.withDescription("Load sample data"),
  Command.withSubcommands([seedDemoCommand, seedScaleCommand])
)

/** `business create` flags by the import-document path they fill, for error messages. */
const BUSINESS_FLAG_PATHS: ReadonlyArray<readonly [string, string]> = [
  ["business.subdomain", "--subdomain"],
  ["business.name", "--name"],
  ["business.time_zone", "--time-zone"],
  ["business.currency_code", "--currency"],
  ["business.default_locale", "--locale"],
  ["staff[0].email", "--owner-email"],
  ["staff[0].first_name", "--owner-first-name"],
  ["staff[0].last_name", "--owner-last-name"]
]
const renameBusinessPaths = (line: string) =>
  BUSINESS_FLAG_PATHS.reduce((text, [path, flag]) => (text.startsWith(`${path}:`) ? flag + text.slice(path.length) : text), line)

const businessCreate = Command.make(
  "create",
  {
    subdomain: Flag.String("subdomain").pipe(Flag.withDescription("Lowercase letters, digits and hyphens; the host is SUBDOMAIN.BASE_DOMAIN")),
    name: Flag.String("name").pipe(Flag.withDescription("The business name")),
    ownerEmail: Flag.String("owner-email").pipe(
      Flag.withDescription("E-mail of the primary owner (an existing account with that address is reused)")
    ),
    ownerFirstName: Flag.optional(Flag.String("owner-first-name")).pipe(
      Flag.withDescription("Owner's first name (default: the part of the e-mail before @)")
    ),
    ownerLastName: Flag.String("owner-last-name").pipe(Flag.withDefault(""), Flag.withDescription("Owner's last name (default: empty)")),
    timeZone: Flag.String("time-zone").pipe(Flag.withDefault("UTC"), Flag.withDescription("IANA time zone, e.g. Europe/Berlin (default: UTC)")),
    currency: Flag.String("currency").pipe(Flag.withDefault("USD"), Flag.withDescription("ISO 4217 currency code (default: USD)")),
    locale: Flag.Literals("locale", LOCALES).pipe(Flag.withDefault("en"), Flag.withDescription("Default locale of the business (default: en)"))
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        yield* migrateDatabase
        const email = flags.ownerEmail.trim()
        const document: ImportDocumentInput = {
          business: {
            subdomain: flags.subdomain.trim().toLowerCase(),
            name: flags.name,
            time_zone: flags.timeZone,
            currency_code: flags.currency.trim().toUpperCase(),
            default_locale: flags.locale
          },
          staff: [
            {
              email,
              first_name: Option.getOrElse(flags.ownerFirstName, () => email.split("@")[0] ?? email),
              last_name: flags.ownerLastName,
              role: "primary_owner"
            }
          ]
        }
        const summary = yield* importBusiness(document).pipe(
          Effect.mapError((error) => importProblems(error, "cannot create the business", renameBusinessPaths))
        )
        const business = yield* (yield* BusinessRepo).find(summary.business_id)
        const owner = yield* ImportRepo.findPersonByEmail(summary.business_id, email)
        yield* printJson({ ...business, owner: Option.getOrNull(owner) })
      })
    )
).pipe(Command.withDescription("Create an empty business with its primary owner (prints the business as JSON)"))

const business = Command.make("business").pipe(
  Command.withDescription("Manage businesses"),
  Command.withSubcommands([businessCreate])
)

const importCommand = Command.make(
  "import",
  { file: Argument.String("file").pipe(Argument.withDescription("The import document, a JSON file")) },
  ({ file }) =>
    withServices(
      Effect.gen(function* () {
        const text = yield* Effect.tryPromise({
          try: () => fs.readFile(file, "utf8"),
          catch: (cause) =>
            userError(
              `cannot read ${file}: ${cause instanceof Error && "code" in cause && cause.code === "ENOENT" ? "no such file" : String(cause)}`
            )
        })
        const input = yield* Effect.try({
          try: (): unknown => JSON.parse(text),
          catch: (cause) => userError(`${file} is not valid JSON: ${cause instanceof Error ? cause.message : String(cause)}`)
        })
        yield* migrateDatabase
        const summary = yield* importBusiness(input).pipe(
          Effect.mapError((error) => importProblems(error, `${file} is not a valid import document`))
        )
        yield* printJson(summary)
      })
    )
).pipe(
  Command.withDescription("Import a business from a JSON document, all or nothing (prints a summary as JSON)")
)

const token = Command.make(
  "token",
  {
    email: Flag.String("email").pipe(Flag.withDescription("E-mail of the account")),
    business: Flag.optional(Flag.String("business")).pipe(
      Flag.withDescription("Subdomain: the token works only on that business's host (default: an account-level token)")
    )
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        const email = yield* checkEmail("--email", flags.email)
        yield* migrateDatabase
        const account = yield* ImportRepo.findAccountId(email)
        if (Option.isNone(account)) return yield* userError(`no account with e-mail ${email}`)
        let businessId = Option.none<number>()
        if (Option.isSome(flags.business)) {
          const id = yield* findBusiness(flags.business.value)
          const person = yield* ImportRepo.findPersonOfAccount(id, account.value)
          if (Option.isNone(person)) {
            return yield* userError(`${email} is not a person in business "${flags.business.value}"`)
          }
          businessId = Option.some(id)
        }
        const issued = yield* (yield* AccessTokens).issue({ accountId: account.value, businessId, applicationId: Option.none() })
        yield* printLine(issued)
      })
    )
).pipe(Command.withDescription("Issue an access token for an account; prints only the token"))

const appCreate = Command.make(
  "create",
  {
    name: Flag.String("name").pipe(Flag.withDescription("Application name shown to users")),
    redirectUri: Flag.String("redirect-uri").pipe(Flag.withDescription("OAuth redirect URI (absolute URL)")),
    isPublic: Flag.Boolean("public").pipe(
      Flag.withDefault(false),
      Flag.withDescription("A public client (mobile/SPA with PKCE): no client secret")
    )
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        const name = flags.name.trim()
        if (name.length === 0 || name.length > 200) return yield* userError("--name: must be 1-200 characters")
        if (URL.parse(flags.redirectUri) === null || flags.redirectUri.includes("#")) {
          return yield* userError(`--redirect-uri: "${flags.redirectUri}" is not an absolute URL without a fragment`)
        }
        yield* migrateDatabase
        // Stored as typed, not as `URL.href`: authorization requests compare the exact string
        // (RFC 6749 3.1.2.3), and `href` would turn `http://foo.com` into `http://foo.com/`.
        const created = yield* (yield* Applications).create({ name, redirectUri: flags.redirectUri, isPublic: flags.isPublic })
        yield* printJson({ client_id: created.client_id, client_secret: created.client_secret })
      })
    )
).pipe(Command.withDescription("Register an OAuth application; prints its client_id and client_secret (shown once)"))

const app = Command.make("app").pipe(
  Command.withDescription("Manage OAuth applications"),
  Command.withSubcommands([appCreate])
)

/** `webhooks enable|disable --business S`: the business's webhooks feature (spec, Events). */
const webhooksFeature = (enabled: boolean) =>
  Command.make(
    enabled ? "enable" : "disable",
    { business: Flag.String("business").pipe(Flag.withDescription("Subdomain of the business")) },
    (flags) =>
      withServices(
        Effect.gen(function* () {
          yield* migrateDatabase
          const businessId = yield* findBusiness(flags.business)
          const removed = enabled ? 0 : yield* (yield* WebhooksRepo).countSubscriptions(businessId)
          const changed = yield* setWebhooksFeature(businessId, enabled)
          yield* printJson({
            business: flags.business.trim().toLowerCase(),
            webhooks_enabled: enabled,
            changed,
            ...(enabled ? {} : { webhooks_deleted: changed ? removed : 0 })
          })
        })
      )
  ).pipe(
    Command.withDescription(
      enabled
        ? "Turn on the webhooks feature of a business: its owners may subscribe"
        : "Turn off the webhooks feature of a business: deletes its webhooks (and their delivery logs) and stops notifications"
    )
  )

const webhooks = Command.make("webhooks").pipe(
  Command.withDescription("Manage the webhooks feature of businesses"),
  Command.withSubcommands([webhooksFeature(true), webhooksFeature(false)])
)

/** `reports grant|revoke --business S --email E`: report access for staff below owner (spec: owners by default). */
const reportsAccess = (granted: boolean) =>
  Command.make(
    granted ? "grant" : "revoke",
    {
      business: Flag.String("business").pipe(Flag.withDescription("Subdomain of the business")),
      email: Flag.String("email").pipe(Flag.withDescription("E-mail of the staff member"))
    },
    (flags) =>
      withServices(
        Effect.gen(function* () {
          const email = yield* checkEmail("--email", flags.email)
          yield* migrateDatabase
          const businessId = yield* findBusiness(flags.business)
          const staff = yield* (yield* ReportsRepo).setGrant(businessId, email, granted)
          if (!staff) return yield* Effect.fail(userError(`--email: ${email} is not a staff member of "${flags.business}"`))
          yield* printJson({
            business: flags.business.trim().toLowerCase(),
            email,
            staff_member_id: staff.id,
            granted,
            // Owners read reports whatever their grant.
            can_read_reports: granted || isOwner(staff.role as StaffRole)
          })
        })
      )
  ).pipe(
    Command.withDescription(
      granted
        ? "Let a staff member below owner query the Reporting API (owners always may)"
        : "Take back a staff member's report access (owners keep theirs)"
    )
  )

const reports = Command.make("reports").pipe(
  Command.withDescription("Manage access to the Reporting API"),
  Command.withSubcommands([reportsAccess(true), reportsAccess(false)])
)

/** Runs `layer` after migrating, until SIGINT/SIGTERM interrupts the program. */
const runUntilSignal = <E, R>(layer: Layer.Layer<never, E, R>, started: Effect.Effect<void, never, AppConfig>) =>
  Effect.gen(function* () {
    yield* migrateDatabase
    yield* Layer.build(layer)
    yield* started
    return yield* Effect.never
  })

const worker = Command.make("worker", {}, () =>
  withServices(runUntilSignal(WorkerLive, Effect.void))).pipe(
  Command.withDescription("Run only the background worker (graphile-worker), until SIGINT/SIGTERM")
)

const sync = Command.make(
  "sync",
  {
    full: Flag.Boolean("full").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Rebuild the whole store into a new generation (default: apply the rows changed since the last sync)")
    )
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        yield* migrateDatabase
        const summary = yield* runReportSync(flags.full ? "full" : "incremental")
        yield* printJson(summary)
      })
    )
).pipe(Command.withDescription("Sync the report store from PostgreSQL now (prints a summary as JSON)"))

const serve = Command.make("serve", {}, () =>
  withServices(
    runUntilSignal(
      HttpServerLive,
      AppConfig.use((config) =>
        Effect.logInfo("http server listening").pipe(Effect.annotateLogs({ host: config.host, port: config.port })))
    )
  )).pipe(Command.withDescription("Run only the HTTP server (no worker), until SIGINT/SIGTERM"))

const studio = Command.make("studio").pipe(
  Command.withDescription("Studio Service operator commands"),
  Command.withSubcommands([migrate, seed, business, importCommand, token, app, worker, serve, sync, reports, webhooks])
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
