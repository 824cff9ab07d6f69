import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { Applications } from "../../access/applications.ts"
import { migrateDatabase } from "../../platform/startup.ts"
import { printJson, userError, withServices } from "./support.ts"

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

export const app = Command.make("app").pipe(
  Command.withDescription("Manage OAuth applications"),
  Command.withSubcommands([appCreate])
)
