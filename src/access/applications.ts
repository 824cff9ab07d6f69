import { Clock, Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import { CacheEvents } from "../platform/cache-events.ts"

/**
 * OAuth client applications. Unauthenticated front calls name theirs with `client_id`
 * (spec, common rule 8), so known ids are cached briefly. An application created, changed or
 * removed through any process is forgotten by every process at its commit (src/platform/cache-events.ts).
 */
export interface ApplicationsShape {
  readonly isKnownClientId: (clientId: string) => Effect.Effect<boolean>
  /** Registers an application; the secret is returned once and stored hashed. */
  readonly create: (options: {
    readonly name: string
    readonly redirectUri: string
    readonly clientId?: string
    /** A chosen secret (the demo application's documented one); random otherwise. */
    readonly clientSecret?: string
    readonly isPublic?: boolean
  }) => Effect.Effect<{ readonly client_id: string; readonly client_secret: string | null }>
}

export class Applications extends Context.Service<Applications, ApplicationsShape>()("studio/Applications") {}

export const hashClientSecret = (secret: string): string => createHash("sha256").update(secret, "utf8").digest("hex")

const TTL_MS = 30_000

export const ApplicationsLive = Layer.effect(Applications)(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const byClientId = SqlSchema.findAll({
      Request: Schema.Struct({ clientId: Schema.String }),
      Result: Schema.Struct({ found: Schema.Number }),
      execute: ({ clientId }) => sql`select 1 as found from oauth_applications where client_id = ${clientId}`
    })
    const insert = SqlSchema.void({
      Request: Schema.Struct({
        clientId: Schema.String,
        secretHash: Schema.NullOr(Schema.String),
        name: Schema.String,
        redirectUri: Schema.String,
        isPublic: Schema.Boolean
      }),
      execute: (app) =>
        sql`insert into oauth_applications (client_id, client_secret_hash, name, redirect_uri, is_public)
            values (${app.clientId}, ${app.secretHash}, ${app.name}, ${app.redirectUri}, ${app.isPublic})`
    })
    const known = new Map<string, { readonly exists: boolean; readonly expires: number }>()
    let generation = 0
    yield* CacheEvents.use((events) =>
      Effect.sync(() =>
        events.subscribe({
          kind: "application",
          changed: (clientId) => {
            generation++
            known.delete(clientId)
          },
          dropAll: () => {
            generation++
            known.clear()
          }
        })))
    return Applications.of({
      // Every unauthenticated client-mode request passes here: no span per call.
      isKnownClientId: Effect.fnUntraced(function* (clientId) {
        if (clientId.length === 0 || clientId.length > 200) return false
        const now = yield* Clock.currentTimeMillis
        const hit = known.get(clientId)
        if (hit && hit.expires > now) return hit.exists
        const loadedIn = generation
        const rows = yield* byClientId({ clientId }).pipe(Effect.orDie)
        if (loadedIn !== generation) return rows.length > 0
        if (known.size > 10_000) known.clear()
        known.set(clientId, { exists: rows.length > 0, expires: now + TTL_MS })
        return rows.length > 0
      }),
      create: Effect.fn("Applications.create")(function* (options) {
        const clientId = options.clientId ?? randomBytes(16).toString("hex")
        const secret = options.isPublic ? null : (options.clientSecret ?? randomBytes(32).toString("base64url"))
        yield* insert({
          clientId,
          secretHash: secret === null ? null : hashClientSecret(secret),
          name: options.name,
          redirectUri: options.redirectUri,
          isPublic: options.isPublic ?? false
        }).pipe(Effect.orDie)
        known.delete(clientId)
        return { client_id: clientId, client_secret: secret }
      })
    })
  })
)
