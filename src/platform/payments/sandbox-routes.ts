import { Clock, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { escapeHtml, sandboxPage, sandboxProblem } from "../sandbox-page.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { checkCard } from "./cards.ts"
import { formPath, setupIntentPath } from "./sandbox.ts"
import { SandboxGatewayStore } from "./sandbox-store.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * The sandbox gateway's hosted card form (vaulting step two) and its setup-intent page
 * (processor_connect). The form's one POST is checked (cards.ts), the card vaulted as a token
 * or the problems recorded by field name, and the browser sent on (303) to the address the API
 * gave: the API reads the outcome there (step three). Plain HTML, every value escaped, no
 * scripts, nothing posted is ever echoed back or logged. English only: a developer's stand-in.
 */
const escape = escapeHtml

const NO_STORE = { "cache-control": "no-store", "referrer-policy": "no-referrer" }

const LOOK = {
  banner: "Sandbox payment gateway: use a test card such as 4242 4242 4242 4242; no money moves.",
  width: "32rem",
  style: `  label { display: block; margin-top: .8rem; font-weight: 600; }
  input { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; border: 1px solid #c9ccd1; border-radius: 6px; }
  button { margin-top: 1.5rem; }`,
  csp: "form-action 'self'"
}

const page = (title: string, body: string, status = 200) => sandboxPage({ ...LOOK, title, body, status })

const problem = (message: string, status: number) => sandboxProblem(LOOK, "Card", message, status)

const FIELDS: ReadonlyArray<readonly [string, string, string]> = [
  ["billing-cc-number", "Card number", "cc-number"],
  ["billing-cc-exp", "Expiry (MMYY)", "off"],
  ["billing-cvv", "CVV", "cc-csc"],
  ["billing-first-name", "First name", "cc-given-name"],
  ["billing-last-name", "Last name", "cc-family-name"],
  ["billing-address1", "Address", "address-line1"],
  ["billing-address2", "Address (line 2)", "address-line2"],
  ["billing-city", "City", "address-level2"],
  ["billing-state", "State (two letters)", "address-level1"],
  ["billing-postal", "Postal code", "postal-code"],
  ["billing-country", "Country (two letters)", "country"],
  ["billing-phone", "Phone", "tel"],
  ["billing-email", "E-mail", "email"]
]

const cardForm = (action: string, heading: string) => {
  const inputs = FIELDS.map(
    ([name, label, autocomplete]) =>
      `<label for="${name}">${escape(label)}</label>\n<input id="${name}" name="${name}" autocomplete="${autocomplete}">`
  ).join("\n")
  return page(heading, `<h1>${escape(heading)}</h1>\n<form method="post" action="${escape(action)}">\n${inputs}\n<button type="submit">Save card</button>\n</form>`)
}

/** The form of the path on this business host, still open and unexpired. */
const openForm = Effect.gen(function* () {
  const context = yield* RequestContext
  const params = yield* HttpRouter.params
  const formId = params["form_id"] ?? ""
  if (Option.isNone(context.business)) return { _tag: "Refused" as const, response: problem("No such card form.", 404) }
  const businessId = context.business.value.id
  const store = yield* SandboxGatewayStore
  const form = yield* store.findForm(businessId, formId)
  if (!form) return { _tag: "Refused" as const, response: problem("No such card form.", 404) }
  if (form.state !== "open") return { _tag: "Refused" as const, response: problem("This card form was already used. Start again.", 410) }
  if ((yield* Clock.currentTimeMillis) >= form.expires_at.getTime()) {
    return { _tag: "Refused" as const, response: problem("This card form has expired. Start again.", 410) }
  }
  return { _tag: "Open" as const, businessId, form }
})

const showForm = Effect.gen(function* () {
  const opened = yield* openForm
  if (opened._tag === "Refused") return opened.response
  return cardForm(formPath(opened.form.id), "Add a card")
})

/** The request pipeline turned the url-encoded form into JSON. */
const postedFields = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = Option.getOrElse(yield* Effect.option(request.json), () => ({}))
  return (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
})

const submitForm = Effect.gen(function* () {
  const opened = yield* openForm
  if (opened._tag === "Refused") return opened.response
  const { businessId, form } = opened
  const store = yield* SandboxGatewayStore
  const now = (yield* currentTime)
  const checked = checkCard(
    yield* postedFields,
    { cvv: form.require_cvv, address: form.require_address, postal: form.require_postal, acceptedCardTypes: form.accepted_card_types },
    now
  )
  const outcome = checked._tag === "Valid" ? { token: yield* store.vault(businessId, checked.card, now) } : { problems: checked.problems }
  // A concurrent second POST lost the race: its card (if any) stays an orphan token nobody holds.
  yield* store.completeForm(businessId, form.id, outcome, now)
  return HttpServerResponse.redirect(form.return_url, { status: 303, headers: NO_STORE })
})

/** processor_connect: the sandbox's stand-in for the processor's browser library confirming a setup intent. */
const openIntent = Effect.gen(function* () {
  const context = yield* RequestContext
  const params = yield* HttpRouter.params
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = new URL(request.url, "http://localhost").searchParams
  const id = params["setup_intent_id"] ?? ""
  if (Option.isNone(context.business)) return undefined
  const intent = yield* (yield* SandboxGatewayStore).findIntent(context.business.value.id, id)
  const secret = query.get("client_secret") ?? ""
  if (!intent || intent.client_secret !== secret) return undefined
  return { businessId: context.business.value.id, intent, secret }
})

const showIntent = Effect.gen(function* () {
  const opened = yield* openIntent
  if (!opened) return problem("No such setup intent.", 404)
  if (opened.intent.token !== null) return page("Card saved", "<h1>Card saved</h1>")
  return cardForm(`${setupIntentPath(opened.intent.id)}?client_secret=${encodeURIComponent(opened.secret)}`, "Confirm a card")
})

const confirmIntent = Effect.gen(function* () {
  const opened = yield* openIntent
  if (!opened) return problem("No such setup intent.", 404)
  if (opened.intent.token !== null) return page("Card saved", "<h1>Card saved</h1>")
  const store = yield* SandboxGatewayStore
  const now = (yield* currentTime)
  const checked = checkCard(yield* postedFields, { cvv: true, address: false, postal: false, acceptedCardTypes: ["visa", "master_card", "american_express", "discover"] }, now)
  if (checked._tag === "Invalid") {
    const fields = checked.problems.map((p) => `${p.field ?? "card"}: ${p.problem}`).join(", ")
    return problem(`The card was not accepted (${fields}).`, 422)
  }
  yield* store.confirmIntent(opened.businessId, opened.intent.id, yield* store.vault(opened.businessId, checked.card, now))
  return page("Card saved", "<h1>Card saved</h1>")
})

export const SandboxGatewayRoutesLive = Layer.mergeAll(
  HttpRouter.add("GET", "/sandbox/gateway/forms/:form_id", showForm),
  HttpRouter.add("POST", "/sandbox/gateway/forms/:form_id", submitForm),
  HttpRouter.add("GET", "/sandbox/gateway/setup_intents/:setup_intent_id", showIntent),
  HttpRouter.add("POST", "/sandbox/gateway/setup_intents/:setup_intent_id", confirmIntent)
)
