import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { type Caller, type ClientCaller, type PathMode, pathModeOf } from "../../access/caller.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { clientCaller } from "../../catalog/services/callers.ts"
import { vaultingRequirements } from "../../catalog/payment-configuration/model.ts"
import { currentPaymentConfiguration } from "../../catalog/payment-configuration/handlers.ts"
import { requireLivePerson } from "../../identity/people/client-reach.ts"
import { GatewayUnavailable, PaymentGateway, type VaultedCard, type VaultProblem } from "../../platform/payments/gateway.ts"
import { type Message, NotFound, Unprocessable, fail } from "../../shared/errors.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { type FormOfPaymentCreateInput, type FormOfPaymentListQuery, type FormOfPaymentUpdateInput, toFormOfPaymentWire } from "./model.ts"
import { FormsOfPaymentRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { FormOfPaymentRefusals } from "./refusals.ts"

/**
 * Forms of payment (spec: Forms of payment). Client mode reaches only the token's own person
 * (not dependents: a card is its holder's); staff mode any live person of the business.
 * Cards are created by vaulting only, in three steps:
 * 1. `start` opens a session (random id, ten minutes) and the gateway's single-use card form.
 * 2. The form (the gateway's, never this service's API) posts the card and redirects to the
 *    session's address: `/api/v2/{mode}/people/{person}/form_of_payments/vaulting/{session}`.
 * 3. `complete` (that address; the session id is the credential, as a browser follows it without
 *    our bearer header) reads the gateway's result once: the form of payment, or a 4xx naming
 *    the problem. The session is used up by a final answer (saved, declined, bad fields).
 */
export const VAULTING_SECONDS = 10 * 60


/** Client mode: the caller's own person (`me` too); anyone else is not found. Answers the person's id. */
export const requireOwnPerson = (caller: ClientCaller, personId: number | "me") =>
  personId !== "me" && personId !== caller.personId ? FormOfPaymentRefusals.personNotFound.fail({ id: personId }) : Effect.succeed(caller.personId)

/** `requireOwnPerson` for the client-mode caller of the request. */
export const requireFrontPerson = (personId: number | "me") => Effect.flatMap(clientCaller, (caller) => requireOwnPerson(caller, personId))

/** Staff mode: any live person of the business. Answers the person's id. */
export const requireDeskPerson = (personId: number) => Effect.as(requireLivePerson(personId), personId)

// The functions below run after the handler's requireFrontPerson or requireDeskPerson.

const findForm = Effect.fn("FormsOfPayment.find")(function* (personId: number, id: number) {
  const business = yield* CurrentBusiness
  const row = yield* (yield* FormsOfPaymentRepo).find({ businessId: business.id, personId, id })
  if (!row) return yield* FormOfPaymentRefusals.formOfPaymentNotFound.fail({ id })
  return row
})

export const listFormsOfPayment = Effect.fn("FormsOfPayment.list")(function* (personId: number, query: FormOfPaymentListQuery) {
  const business = yield* CurrentBusiness
  const page = pageOf(query)
  const { rows, total } = yield* (yield* FormsOfPaymentRepo).list({ businessId: business.id, personId, page })
  return { form_of_payments: rows.map(toFormOfPaymentWire), ...(yield* pageLinks(page, total)) }
})

export const getFormOfPayment = Effect.fn("FormsOfPayment.get")(function* (personId: number, id: number) {
  return { form_of_payments: [toFormOfPaymentWire(yield* findForm(personId, id))] }
})

export const gatewayUnavailable = (error: GatewayUnavailable) =>
  Effect.flatMap(Effect.logWarning("payment gateway unavailable", { reason: error.reason }), () =>
    FormOfPaymentRefusals.paymentGatewayUnavailable.fail())

/** Step one: a session and the gateway's card form for it. */
export const startVaulting = Effect.fn("FormsOfPayment.startVaulting")(function* (caller: Caller, personId: number, input: FormOfPaymentCreateInput) {
  const mode = pathModeOf(caller)
  const business = yield* CurrentBusiness
  const context = yield* RequestContext
  const type = input.type ?? ""
  if (type.trim() === "") return yield* FormOfPaymentRefusals.formOfPaymentTypeBlank.fail()
  if (type !== "creditcard") return yield* FormOfPaymentRefusals.formOfPaymentTypeInvalid.fail({ type })
  const configuration = yield* currentPaymentConfiguration
  if (!configuration.accepted_types.includes("creditcard")) return yield* FormOfPaymentRefusals.formOfPaymentCreditcardNotAccepted.fail()
  const started = yield* currentTime
  const expiresAt = new Date(started.getTime() + VAULTING_SECONDS * 1000)
  const session = randomBytes(16).toString("base64url")
  const returnUrl = `${context.origin}/api/v2/${mode}/people/${personId}/form_of_payments/vaulting/${session}`
  const form = yield* (yield* PaymentGateway)
    .startVaulting({ businessId: business.id, returnUrl, expiresAt, requirements: vaultingRequirements(configuration) })
    .pipe(Effect.catchTag("GatewayUnavailable", gatewayUnavailable))
  yield* (yield* FormsOfPaymentRepo).insertVaulting({ businessId: business.id, id: session, personId, mode, formId: form.formId, expiresAt, now: started })
  return { form_of_payments: [{ type: "creditcard" as const, form_url: form.formUrl, expires_at: formatTimestamp(expiresAt) }] }
})

const problemMessage = (problem: VaultProblem): Message => {
  const field = problem.field ?? "card"
  switch (problem.problem) {
    case "blank":
      return FormOfPaymentRefusals.vaultingFieldBlank.message({ field })
    case "expired":
      return FormOfPaymentRefusals.vaultingCardExpired.message({ field })
    case "not_accepted":
      return FormOfPaymentRefusals.vaultingCardNotAccepted.message({ field })
    case "declined":
      return FormOfPaymentRefusals.vaultingDeclined.message()
    default:
      return FormOfPaymentRefusals.vaultingFieldInvalid.message({ field })
  }
}

/**
 * Saves a vaulted card as the person's form of payment, inside the caller's transaction; the
 * person's first form becomes the autobill default (exactly one while any exist). A card the
 * person already holds (same gateway token) is not saved twice. Answers the form's id.
 */
export const saveCard = Effect.fn("FormsOfPayment.saveCard")(function* (businessId: number, personId: number, card: VaultedCard, at: Date) {
  const repo = yield* FormsOfPaymentRepo
  yield* repo.lockPerson({ businessId, personId })
  const existing = yield* repo.findByToken({ businessId, personId, token: card.token })
  if (existing !== undefined) return existing.id
  const autobill = !(yield* repo.hasAutobill({ businessId, personId }))
  const { id } = yield* repo.insertCard({
    businessId,
    personId,
    firstName: card.firstName,
    lastName: card.lastName,
    autobill,
    token: card.token,
    cardType: card.cardType,
    expireMonth: card.expireMonth,
    expireYear: card.expireYear,
    lastFour: card.lastFour,
    now: at
  })
  return id
})

type Completion = { readonly _tag: "Saved" } | { readonly _tag: "Refused"; readonly messages: ReadonlyArray<Message>; readonly status: "404" | "422" }

/**
 * Step three, on the business host without a token: the session of the path (its person and
 * mode too), unused and unexpired, and the gateway's outcome. A final outcome uses the session
 * up in the same transaction that saves the card; the refusal is answered after it commits.
 */
export const completeVaulting = Effect.fn("FormsOfPayment.completeVaulting")(function* (mode: PathMode, personId: number, session: string) {
  const context = yield* RequestContext
  if (Option.isNone(context.business)) return yield* FormOfPaymentRefusals.vaultingNotFound.fail()
  const businessId = context.business.value.id
  const repo = yield* FormsOfPaymentRepo
  const gateway = yield* PaymentGateway
  const sql = yield* SqlClient.SqlClient
  const completion: Completion = yield* sql
    .withTransaction(
      Effect.gen(function* () {
        const at = yield* currentTime
        const vaulting = yield* repo.lockVaulting({ businessId, id: session })
        if (!vaulting || vaulting.person_id !== personId || vaulting.mode !== mode) {
          return { _tag: "Refused", status: "404", messages: [FormOfPaymentRefusals.vaultingNotFound.message()] } satisfies Completion
        }
        if (vaulting.used_at !== null) return { _tag: "Refused", status: "422", messages: [FormOfPaymentRefusals.vaultingUsed.message()] } satisfies Completion
        if (at.getTime() >= vaulting.expires_at.getTime()) {
          return { _tag: "Refused", status: "422", messages: [FormOfPaymentRefusals.vaultingExpired.message()] } satisfies Completion
        }
        const result = yield* gateway.vaultResult({ businessId, formId: vaulting.gateway_form_id })
        if (result._tag === "Pending") return { _tag: "Refused", status: "422", messages: [FormOfPaymentRefusals.vaultingPending.message()] } satisfies Completion
        if (result._tag === "Failed") {
          yield* repo.useVaulting({ businessId, id: session, formOfPaymentId: null, now: at })
          const messages = result.problems.length > 0 ? result.problems.map(problemMessage) : [FormOfPaymentRefusals.vaultingDeclined.message()]
          return { _tag: "Refused", status: "422", messages } satisfies Completion
        }
        const id = yield* saveCard(businessId, personId, result.card, at)
        yield* repo.useVaulting({ businessId, id: session, formOfPaymentId: id, now: at })
        return { _tag: "Saved" } satisfies Completion
      })
    )
    .pipe(Effect.catchTag("SqlError", Effect.die), Effect.catchTag("GatewayUnavailable", gatewayUnavailable))
  if (completion._tag === "Saved") return {}
  return yield* completion.status === "404" ? fail(NotFound, ...completion.messages) : fail(Unprocessable, ...completion.messages)
})

/** `autobill: true` makes the form the default and turns the others off; the default cannot simply be turned off. */
export const updateFormOfPayment = Effect.fn("FormsOfPayment.update")(function* (
  personId: number,
  id: number,
  input: FormOfPaymentUpdateInput
) {
  const business = yield* CurrentBusiness
  const repo = yield* FormsOfPaymentRepo
  const sql = yield* SqlClient.SqlClient
  const row = yield* findForm(personId, id)
  if (input.id !== undefined && input.id !== id) return yield* FormOfPaymentRefusals.formOfPaymentIdMismatch.fail({ id })
  if (input.autobill === false && row.autobill) return yield* FormOfPaymentRefusals.formOfPaymentAutobillRequired.fail()
  if (input.autobill === true && !row.autobill) {
    const at = yield* currentTime
    yield* sql
      .withTransaction(Effect.andThen(repo.lockPerson({ businessId: business.id, personId }), repo.makeAutobill({ businessId: business.id, personId, id, now: at })))
      .pipe(Effect.catchTag("SqlError", Effect.die))
  }
  return { form_of_payments: [toFormOfPaymentWire(yield* findForm(personId, id))] }
})
