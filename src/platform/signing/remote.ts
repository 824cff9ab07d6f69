import { Effect, Layer, Schema } from "effect"
import { AppConfig } from "../config.ts"
import { SigningProvider, SigningUnavailable } from "./provider.ts"

/**
 * A signing provider outside this service (SIGNING_PROVIDER=remote, SIGNING_PROVIDER_URL,
 * SIGNING_PROVIDER_KEY as a bearer token), over a small JSON protocol:
 *   POST {url}/envelopes {business_id, reference, signer_name, signer_email, document_text} → {id}
 *   POST {url}/envelopes/{id}/signing_sessions {return_url} → {url}
 *   GET  {url}/envelopes/{id} → {status: pending | signed | declined}
 * An adapter for a particular vendor speaks its API behind the same interface. Anything but a
 * 2xx with the expected body, within 5 seconds, is SigningUnavailable.
 */
const TIMEOUT_MS = 5000

const Created = Schema.Struct({ id: Schema.String })
const Session = Schema.Struct({ url: Schema.String })
const Status = Schema.Struct({ status: Schema.Literals(["pending", "signed", "declined"]) })

const call = <S extends Schema.Top & { readonly DecodingServices: never }>(
  baseUrl: string | undefined,
  key: string | undefined,
  method: "GET" | "POST",
  path: string,
  body: unknown,
  schema: S
) =>
  Effect.gen(function* () {
    if (!baseUrl) return yield* new SigningUnavailable({ reason: "SIGNING_PROVIDER_URL is not set" })
    const json = yield* Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(`${baseUrl.replace(/\/+$/, "")}${path}`, {
          method,
          headers: {
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...(key ? { authorization: `Bearer ${key}` } : {})
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
          redirect: "error"
        })
        if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}`)
        return (await response.json()) as unknown
      },
      catch: (error) => new SigningUnavailable({ reason: String(error) })
    })
    return yield* Schema.decodeUnknownEffect(schema)(json).pipe(
      Effect.mapError((error) => new SigningUnavailable({ reason: `${method} ${path}: ${error.message}` }))
    )
  }).pipe(Effect.tapError((error) => Effect.logWarning("signing provider unavailable", error.reason)))

export const RemoteSigningLive = Layer.effect(SigningProvider)(
  AppConfig.useSync(({ signingProviderUrl: url, signingProviderKey: key }) =>
    SigningProvider.of({
      createEnvelope: (input) =>
        call(url, key, "POST", "/envelopes", {
          business_id: input.businessId,
          reference: input.reference,
          signer_name: input.signerName,
          signer_email: input.signerEmail,
          document_text: input.documentText
        }, Created).pipe(Effect.map((created) => ({ documentId: created.id })), Effect.withSpan("RemoteSigning.createEnvelope")),
      signingUrl: ({ documentId, returnUrl }) =>
        call(url, key, "POST", `/envelopes/${encodeURIComponent(documentId)}/signing_sessions`, { return_url: returnUrl }, Session).pipe(
          Effect.map((session) => session.url),
          Effect.withSpan("RemoteSigning.signingUrl")
        ),
      envelopeStatus: ({ documentId }) =>
        call(url, key, "GET", `/envelopes/${encodeURIComponent(documentId)}`, undefined, Status).pipe(
          Effect.map((found) => found.status),
          Effect.withSpan("RemoteSigning.envelopeStatus")
        )
    })
  )
)
