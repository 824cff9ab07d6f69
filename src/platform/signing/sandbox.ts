import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { RequestContext } from "../../shared/request-context.ts"
import { type EnvelopeStatus, SigningProvider } from "./provider.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * The sandbox signing provider: a stand-in for a hosted signing service, served by this
 * service itself (its page: sandbox-routes.ts). Envelopes live in PostgreSQL
 * (signing_envelopes), so every API process sees the same state.
 *
 * A signing URL is `{business host}/sandbox/signing/{document id}?return_to=..&expires=..&signature=..`:
 * the return address and an expiry, signed with the deployment's sandbox key (app_secrets),
 * so the page can only send the browser where the API asked, and only for a while. The
 * document id is random (128 bits) too; the page needs both.
 */
export const SIGNING_SESSION_SECONDS = 60 * 60

const EnvelopeRow = Schema.Struct({
  id: Schema.String,
  signer_name: Schema.String,
  document_text: Schema.String,
  status: Schema.Literals(["pending", "signed", "declined"]),
  completed_at: Schema.NullOr(Schema.Date)
})
export type EnvelopeRow = typeof EnvelopeRow.Type

const NewEnvelope = Schema.Struct({
  businessId: Schema.Number,
  id: Schema.String,
  reference: Schema.String,
  signerName: Schema.String,
  signerEmail: Schema.NullOr(Schema.String),
  documentText: Schema.String,
  now: Schema.Date
})

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.void({
    Request: NewEnvelope,
    execute: (row) =>
      sql`insert into signing_envelopes (business_id, id, reference, signer_name, signer_email, document_text, created_at)
          values (${row.businessId}, ${row.id}, ${row.reference}, ${row.signerName}, ${row.signerEmail}, ${row.documentText}, ${row.now})`
  })
  const find = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.String }),
    Result: EnvelopeRow,
    execute: ({ businessId, id }) =>
      sql`select id, signer_name, document_text, status, completed_at from signing_envelopes
          where business_id = ${businessId} and id = ${id}`
  })
  // The first choice is final: a second POST (another tab, a replay) changes nothing.
  const complete = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.String, status: Schema.Literals(["signed", "declined"]), now: Schema.Date }),
    execute: ({ businessId, id, status, now }) =>
      sql`update signing_envelopes set status = ${status}, completed_at = ${now}
          where business_id = ${businessId} and id = ${id} and status = 'pending'`
  })
  const createKey = SqlSchema.void({
    Request: Schema.String,
    execute: (value) => sql`insert into app_secrets (name, value) values ('signing_sandbox', ${value}) on conflict (name) do nothing`
  })
  const readKey = SqlSchema.findOne({
    Request: Schema.Void,
    Result: Schema.Struct({ value: Schema.String }),
    execute: () => sql`select value from app_secrets where name = 'signing_sandbox'`
  })

  return {
    insert: (row: typeof NewEnvelope.Type) => insert(row).pipe(Effect.orDie),
    find: (businessId: number, id: string) => find({ businessId, id }).pipe(Effect.orDie),
    complete: (businessId: number, id: string, status: "signed" | "declined", now: Date) =>
      complete({ businessId, id, status, now }).pipe(Effect.orDie),
    /** The key signing the pages' addresses: made once per deployment, shared by its processes. */
    key: Effect.gen(function* () {
      yield* createKey(randomBytes(32).toString("hex"))
      return (yield* readKey(undefined)).value
    }).pipe(Effect.orDie)
  }
})

export class SandboxEnvelopes extends Context.Service<SandboxEnvelopes, Effect.Success<typeof make>>()("studio/SandboxEnvelopes") {
  static readonly layer = Layer.effect(SandboxEnvelopes)(make)
}

const mac = (key: string, parts: ReadonlyArray<string | number>) => createHmac("sha256", key).update(parts.join("\n")).digest("base64url")

/** What a signing page's address carries besides the document id. */
export interface SigningSession {
  readonly returnTo: string
  readonly expires: number
  readonly signature: string
}

export const signSession = (key: string, businessId: number, documentId: string, returnTo: string, expires: number) =>
  mac(key, [businessId, documentId, returnTo, expires])

/** The session is the one the API asked for (signature) and still open (expiry, in seconds). */
export const verifySession = (key: string, businessId: number, documentId: string, session: SigningSession, nowMillis: number) => {
  const expected = Buffer.from(signSession(key, businessId, documentId, session.returnTo, session.expires))
  const given = Buffer.from(session.signature)
  return expected.length === given.length && timingSafeEqual(expected, given) && nowMillis < session.expires * 1000
}

export const sandboxPath = (documentId: string) => `/sandbox/signing/${encodeURIComponent(documentId)}`

/** The sandbox as the SigningProvider: envelopes in PostgreSQL, pages on the request's host. */
export const SandboxSigningLive = Layer.effect(SigningProvider)(
  Effect.gen(function* () {
    const envelopes = yield* SandboxEnvelopes
    return SigningProvider.of({
      createEnvelope: Effect.fn("SandboxSigning.createEnvelope")(function* (input) {
        const documentId = randomBytes(16).toString("base64url")
        const now = (yield* currentTime)
        yield* envelopes.insert({
          businessId: input.businessId,
          id: documentId,
          reference: input.reference,
          signerName: input.signerName,
          signerEmail: input.signerEmail,
          documentText: input.documentText,
          now
        })
        return { documentId }
      }),
      signingUrl: Effect.fn("SandboxSigning.signingUrl")(function* ({ businessId, documentId, returnUrl }) {
        const context = yield* RequestContext
        const key = yield* envelopes.key
        const expires = Math.floor((yield* Clock.currentTimeMillis) / 1000) + SIGNING_SESSION_SECONDS
        const query = new URLSearchParams({
          return_to: returnUrl,
          expires: String(expires),
          signature: signSession(key, businessId, documentId, returnUrl, expires)
        })
        return `${context.origin}${sandboxPath(documentId)}?${query}`
      }),
      envelopeStatus: Effect.fn("SandboxSigning.envelopeStatus")(function* ({ businessId, documentId }) {
        const row = yield* envelopes.find(businessId, documentId)
        // An envelope the sandbox does not know is one nobody signed.
        return Option.match(row, { onNone: (): EnvelopeStatus => "pending", onSome: (found) => found.status })
      })
    })
  })
)
