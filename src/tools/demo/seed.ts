import type { StaffPayRepo } from "../../billing/staff-pay/repo.ts"
import { Effect, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Applications, hashClientSecret } from "../../access/applications.ts"
import { IdRow } from "../../shared/sql-rows.ts"
import { AccessTokens } from "../../access/tokens.ts"
import { ImportRepo } from "../import/repo.ts"
import type { ScheduleImportServices } from "../import/schedule.ts"
import { importBusiness } from "../import/service.ts"
import { AppConfig } from "../../platform/config.ts"
import {
  DEMO_CLIENT_EMAIL,
  DEMO_CLIENT_ID,
  DEMO_CLIENT_SECRET,
  DEMO_OWNER_EMAIL,
  DEMO_PASSWORD,
  DEMO_SUBDOMAIN,
  demoDocument,
  demoRedirectUri
} from "./document.ts"
import { seedDemoHistory } from "./history.ts"

/**
 * The demo business with weeks of history (history.ts), its OAuth application and two
 * ready-made access tokens, so `npm start` prints curl lines that work. Idempotent: an
 * existing `demo` business is left as it is, but for history it has none of yet.
 * The tokens are kept in `{DATA_DIR}/demo-tokens.json` and reused across restarts while they
 * still verify (tokens are stored hashed, so the plain values can only come from that file);
 * a new database, or a revoked token, gets fresh ones.
 */
export interface DemoSeed {
  readonly subdomain: string
  readonly clientId: string
  readonly ownerToken: string
  readonly clientToken: string
  readonly password: string
}

const TokensFile = Schema.fromJsonString(
  Schema.Struct({ business_id: Schema.Number, owner_token: Schema.String, client_token: Schema.String })
)
const decodeTokensFile = Schema.decodeUnknownOption(TokensFile)
const encodeTokensFile = Schema.encodeSync(TokensFile)


/** The demo business, imported when missing (a concurrent start may have imported it first). */
const ensureBusiness = Effect.gen(function* () {
  const existing = yield* (yield* ImportRepo).findBusinessId({ subdomain: DEMO_SUBDOMAIN })
  if (Option.isSome(existing)) return existing.value
  const imported = yield* importBusiness(demoDocument).pipe(
    Effect.map((summary) => Option.some(summary.business_id)),
    Effect.catchTag("ImportError", (error) =>
      error.reason === "subdomain_taken"
        ? Effect.succeed(Option.none<number>())
        : Effect.die(new Error(`The demo document is invalid: ${error.message}`)))
  )
  if (Option.isSome(imported)) return imported.value
  return Option.getOrThrow(yield* (yield* ImportRepo).findBusinessId({ subdomain: DEMO_SUBDOMAIN }))
})

/**
 * The demo application, registered with the callback of this start's `BASE_DOMAIN` and `PORT`.
 * An earlier start on another port registered another one: it follows this start's, but only
 * while the application still has the published secret (one `seed lock-demo` locked keeps its
 * dead-end redirect URI, and an operator's own secret means an operator's own application).
 */
const ensureApplication = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const redirectUri = demoRedirectUri(yield* AppConfig)
  const find = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: IdRow,
    execute: (clientId) => sql`select id from oauth_applications where client_id = ${clientId}`
  })(DEMO_CLIENT_ID).pipe(Effect.map(Option.map((row) => row.id)), Effect.orDie)
  const existing = yield* find
  if (Option.isSome(existing)) {
    yield* sql`update oauth_applications set redirect_uri = ${redirectUri}
               where id = ${existing.value} and client_secret_hash = ${hashClientSecret(DEMO_CLIENT_SECRET)}
                 and redirect_uri <> ${redirectUri}`.pipe(Effect.orDie)
    return existing.value
  }
  yield* (yield* Applications).create({
    name: "Demo app",
    redirectUri,
    clientId: DEMO_CLIENT_ID,
    clientSecret: DEMO_CLIENT_SECRET
  })
  return Option.getOrThrow(yield* find)
})

/** The account of the person with `email` in the business, if there is one. */
const accountOf = (businessId: number, email: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const row = yield* SqlSchema.findOneOption({
      Request: Schema.Struct({ businessId: Schema.Number, email: Schema.String }),
      Result: Schema.Struct({ account_id: Schema.Number }),
      execute: (person) =>
        sql`select account_id from people
            where business_id = ${person.businessId} and email = ${person.email} and account_id is not null and deleted_at is null`
    })({ businessId, email }).pipe(Effect.orDie)
    return Option.map(row, (found) => found.account_id)
  })

const readTokensFile = (file: string) =>
  Effect.promise(() => fs.readFile(file, "utf8").catch(() => "")).pipe(Effect.map((text) => decodeTokensFile(text)))

const writeTokensFile = (file: string, contents: typeof TokensFile.Type) =>
  Effect.tryPromise(async () => {
    await fs.mkdir(path.dirname(file), { recursive: true })
    await fs.writeFile(file, encodeTokensFile(contents) + "\n", { mode: 0o600 })
  }).pipe(
    Effect.catch((error) =>
      Effect.logWarning("could not save the demo tokens; new ones are issued on the next start").pipe(
        Effect.annotateLogs({ file, error: String(error.cause) })
      ))
  )

const seed = Effect.gen(
  function* () {
    const config = yield* AppConfig
    const tokens = yield* AccessTokens
    const businessId = yield* ensureBusiness
    const history = yield* seedDemoHistory(businessId)
    if (Object.values(history).some((count) => count > 0)) {
      yield* Effect.logInfo("demo history seeded").pipe(Effect.annotateLogs(history))
    }
    const applicationId = yield* ensureApplication
    const result = { subdomain: DEMO_SUBDOMAIN, clientId: DEMO_CLIENT_ID, password: DEMO_PASSWORD }

    const ownerAccount = yield* accountOf(businessId, DEMO_OWNER_EMAIL)
    const clientAccount = yield* accountOf(businessId, DEMO_CLIENT_EMAIL)
    if (Option.isNone(ownerAccount) || Option.isNone(clientAccount)) {
      yield* Effect.logWarning(`business "${DEMO_SUBDOMAIN}" has no ${DEMO_OWNER_EMAIL} or ${DEMO_CLIENT_EMAIL}; no demo tokens`)
      return { ...result, ownerToken: "", clientToken: "" }
    }

    // A saved token is reused only while it still grants what it was issued for.
    const stillValid = (token: string, accountId: number) =>
      tokens.verify(token, Option.some(businessId)).pipe(
        Effect.map(Option.exists((grant) => grant.accountId === accountId && Option.contains(grant.tokenBusinessId, businessId)))
      )
    const file = path.join(config.dataDir, "demo-tokens.json")
    const saved = yield* readTokensFile(file)
    if (
      Option.isSome(saved) &&
      saved.value.business_id === businessId &&
      (yield* stillValid(saved.value.owner_token, ownerAccount.value)) &&
      (yield* stillValid(saved.value.client_token, clientAccount.value))
    ) {
      return { ...result, ownerToken: saved.value.owner_token, clientToken: saved.value.client_token }
    }

    const issue = (accountId: number) =>
      tokens.issue({ accountId, businessId: Option.some(businessId), applicationId: Option.some(applicationId) })
    const ownerToken = yield* issue(ownerAccount.value)
    const clientToken = yield* issue(clientAccount.value)
    yield* writeTokensFile(file, { business_id: businessId, owner_token: ownerToken, client_token: clientToken })
    yield* Effect.logInfo("demo tokens issued").pipe(Effect.annotateLogs({ file }))
    return { ...result, ownerToken, clientToken }
  }
)

/**
 * One seeding at a time per database: processes starting together (two servers, a server and
 * `seed demo`) wait for each other here instead of racing on the import, the application and
 * the tokens file.
 */
export const seedDemo: Effect.Effect<
  DemoSeed,
  never,
  SqlClient.SqlClient | AccessTokens | Applications | AppConfig | ImportRepo | ScheduleImportServices | StaffPayRepo
> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      sql`select pg_advisory_xact_lock(hashtext('studio:seed-demo'))`.pipe(Effect.andThen(seed))
    ).pipe(Effect.catchTag("SqlError", Effect.die))
  }
).pipe(Effect.withSpan("Demo.seed"))
