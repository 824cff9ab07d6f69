import { Clock, Effect, Layer, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { escapeHtml, sandboxPage, sandboxProblem } from "../sandbox-page.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { type EnvelopeRow, SandboxEnvelopes, type SigningSession, sandboxPath, verifySession } from "./sandbox.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * The sandbox provider's signing page (sandbox.ts): the document with Sign and Decline. The
 * choice is POSTed back here, recorded (the first one is final) and the browser sent on (303)
 * to the address the API asked for. Plain HTML, every value escaped, no scripts. A developer's
 * stand-in for a hosted provider, so its few words are English only.
 */
const escape = escapeHtml

const LOOK = {
  banner: "Sandbox signing provider: nothing signed here is legally binding.",
  width: "40rem",
  style: `  .document { white-space: pre-wrap; border: 1px solid #c9ccd1; border-radius: 6px; padding: 1rem; max-height: 50vh; overflow: auto; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
  button.secondary { background: #e3e5e8; color: #1b1d21; }`
}

const page = (title: string, body: string, status = 200) => sandboxPage({ ...LOOK, title, body, status })

const problem = (message: string, status: number) => sandboxProblem(LOOK, "Signing", message, status)

const SessionFields = Schema.Struct({
  return_to: Schema.String,
  expires: Schema.NumberFromString,
  signature: Schema.String,
  choice: Schema.optional(Schema.String)
})
const decodeSession = Schema.decodeUnknownOption(SessionFields)

/** The envelope of the path on this business host, with a session the API opened and that is still open. */
const openEnvelope = (fields: unknown) =>
  Effect.gen(function* () {
    const context = yield* RequestContext
    const params = yield* HttpRouter.params
    const documentId = params["document_id"] ?? ""
    if (Option.isNone(context.business)) return { _tag: "Refused" as const, response: problem("No such document.", 404) }
    const businessId = context.business.value.id
    const envelopes = yield* SandboxEnvelopes
    const envelope = yield* envelopes.find(businessId, documentId)
    if (Option.isNone(envelope)) return { _tag: "Refused" as const, response: problem("No such document.", 404) }
    const decoded = decodeSession(fields)
    const session: SigningSession | undefined = Option.isSome(decoded)
      ? { returnTo: decoded.value.return_to, expires: decoded.value.expires, signature: decoded.value.signature }
      : undefined
    if (!session || !verifySession(yield* envelopes.key, businessId, documentId, session, yield* Clock.currentTimeMillis)) {
      return { _tag: "Refused" as const, response: problem("This signing link is invalid or has expired. Ask for a new one.", 403) }
    }
    return {
      _tag: "Open" as const,
      businessId,
      envelope: envelope.value,
      session,
      choice: Option.isSome(decoded) ? decoded.value.choice : undefined
    }
  })

const documentPage = (envelope: EnvelopeRow, session: SigningSession) => {
  const hidden = [
    ["return_to", session.returnTo],
    ["expires", String(session.expires)],
    ["signature", session.signature]
  ]
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escape(value!)}">`)
    .join("\n")
  const body =
    envelope.status === "pending"
      ? `<h1>Please review and sign</h1>
<p>Signer: ${escape(envelope.signer_name)}</p>
<div class="document">${escape(envelope.document_text)}</div>
<form method="post" action="${escape(sandboxPath(envelope.id))}">
${hidden}
<div class="actions">
<button type="submit" name="choice" value="sign">Sign</button>
<button type="submit" name="choice" value="decline" class="secondary">Decline</button>
</div>
</form>`
      : `<h1>${envelope.status === "signed" ? "Signed" : "Declined"}</h1>
<div class="document">${escape(envelope.document_text)}</div>
<p><a href="${escape(session.returnTo)}">Continue</a></p>`
  return page("Sign the document", body)
}

const show = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = Object.fromEntries(new URL(request.url, "http://localhost").searchParams)
  const opened = yield* openEnvelope(query)
  if (opened._tag === "Refused") return opened.response
  return documentPage(opened.envelope, opened.session)
})

/** The request pipeline turned the url-encoded form into JSON. */
const choose = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const form = Option.getOrElse(yield* Effect.option(request.json), () => ({}))
  const opened = yield* openEnvelope(form)
  if (opened._tag === "Refused") return opened.response
  if (opened.choice !== "sign" && opened.choice !== "decline") return problem("Choose Sign or Decline.", 400)
  const now = (yield* currentTime)
  yield* (yield* SandboxEnvelopes).complete(opened.businessId, opened.envelope.id, opened.choice === "sign" ? "signed" : "declined", now)
  return HttpServerResponse.redirect(opened.session.returnTo, { status: 303, headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" } })
})

export const SandboxSigningRoutesLive = Layer.mergeAll(
  HttpRouter.add("GET", "/sandbox/signing/:document_id", show),
  HttpRouter.add("POST", "/sandbox/signing/:document_id", choose)
)
