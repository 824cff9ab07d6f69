import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { RequestContext } from "../../shared/request-context.ts"
import { type CardNetwork, type ChargeResult, PaymentGateway, type VaultedCard, type VaultProblem } from "./gateway.ts"
import { type CardRow, SandboxGatewayStore, type TransactionRow, randomId } from "./sandbox-store.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * The sandbox payment gateway: a stand-in for a hosted-form gateway, served by this service
 * itself (its pages: sandbox-routes.ts; its card rules and test numbers: cards.ts). Its state
 * lives in PostgreSQL (sandbox_gateway_*), so every API process serves its pages and agrees on
 * charges. A hosted form's address is `{business host}/sandbox/gateway/forms/{id}`: the id is
 * random (128 bits), single-use and expires with the vaulting session.
 */
export const formPath = (formId: string) => `/sandbox/gateway/forms/${encodeURIComponent(formId)}`
export const setupIntentPath = (id: string) => `/sandbox/gateway/setup_intents/${encodeURIComponent(id)}`

const toVaulted = (row: CardRow): VaultedCard => ({
  token: row.token,
  cardType: row.card_type as CardNetwork,
  lastFour: row.last_four,
  expireMonth: row.expire_month,
  expireYear: row.expire_year,
  firstName: row.first_name,
  lastName: row.last_name
})


/** The sandbox as the PaymentGateway: state in PostgreSQL, pages on the request's host. */
export const SandboxGatewayLive = Layer.effect(PaymentGateway)(
  Effect.gen(function* () {
    const store = yield* SandboxGatewayStore
    const sql = yield* SqlClient.SqlClient
    /** One operation per idempotency key: a retry answers what the first one did. */
    const once = <A>(businessId: number, key: string, write: Effect.Effect<void>, answer: (row: typeof TransactionRow.Type) => A) =>
      Effect.gen(function* () {
        yield* write
        const row = yield* store.byIdempotencyKey(businessId, key)
        return answer(row!)
      })
    const outcome = (row: typeof TransactionRow.Type): ChargeResult =>
      row.status === "declined" ? { _tag: "Declined", reason: row.decline_reason ?? "declined" } : { _tag: "Succeeded", transactionId: row.id }

    return PaymentGateway.of({
      startVaulting: Effect.fn("SandboxGateway.startVaulting")(function* ({ businessId, returnUrl, expiresAt, requirements }) {
        const context = yield* RequestContext
        const formId = randomId()
        yield* store.insertForm({
          businessId,
          id: formId,
          returnUrl,
          expiresAt,
          cvv: requirements.cvv,
          address: requirements.address,
          postal: requirements.postal,
          acceptedCardTypes: requirements.acceptedCardTypes,
          now: yield* currentTime
        })
        return { formId, formUrl: `${context.origin}${formPath(formId)}` }
      }),
      vaultResult: Effect.fn("SandboxGateway.vaultResult")(function* ({ businessId, formId }) {
        const form = yield* store.findForm(businessId, formId)
        if (!form || form.state === "open") return { _tag: "Pending" as const }
        if (form.state === "failed" || form.token === null) {
          return { _tag: "Failed" as const, problems: (form.problems ?? []) as ReadonlyArray<VaultProblem> }
        }
        const card = yield* store.findCard(businessId, form.token)
        return card ? { _tag: "Vaulted" as const, card: toVaulted(card) } : { _tag: "Pending" as const }
      }),
      charge: Effect.fn("SandboxGateway.charge")(function* (input) {
        const card = yield* store.findCard(input.businessId, input.token)
        const reason = !card ? "invalid_token" : card.behaviour === "decline" ? "card_declined" : card.behaviour === "insufficient_funds" ? "insufficient_funds" : null
        return yield* once(
          input.businessId,
          input.idempotencyKey,
          store.insertTransaction({
            id: randomId("ch_"),
            businessId: input.businessId,
            kind: "charge",
            key: input.idempotencyKey,
            token: input.token,
            chargeId: null,
            amountCents: input.amountCents,
            currency: input.currency,
            description: input.description,
            status: reason === null ? "succeeded" : "declined",
            declineReason: reason,
            now: yield* currentTime
          }),
          outcome
        )
      }),
      refund: Effect.fn("SandboxGateway.refund")(function* ({ businessId, transactionId, amountCents, idempotencyKey }) {
        const earlier = yield* store.byIdempotencyKey(businessId, idempotencyKey)
        if (earlier) return outcome(earlier)
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            // Serializes refunds of one charge: the sum below must see every earlier one.
            yield* sql`select id from sandbox_gateway_transactions where business_id = ${businessId} and id = ${transactionId} for update`
            const charge = yield* store.findTransaction(businessId, transactionId)
            let reason: string | null = null
            if (!charge || charge.kind !== "charge") reason = "unknown_transaction"
            else if (charge.status !== "succeeded") reason = "not_refundable"
            else if (amountCents > charge.amount_cents - (yield* store.refunded(businessId, transactionId))) reason = "amount_exceeds_charge"
            if (reason !== null) return { _tag: "Declined" as const, reason }
            return yield* once(
              businessId,
              idempotencyKey,
              store.insertTransaction({
                id: randomId("re_"),
                businessId,
                kind: "refund",
                key: idempotencyKey,
                token: charge!.token,
                chargeId: transactionId,
                amountCents,
                currency: "",
                description: "",
                status: "succeeded",
                declineReason: null,
                now: yield* currentTime
              }),
              outcome
            )
          })
        ).pipe(Effect.catchTag("SqlError", Effect.die))
      }),
      void: Effect.fn("SandboxGateway.void")(function* ({ businessId, transactionId }) {
        yield* store.voidCharge(businessId, transactionId)
        const charge = yield* store.findTransaction(businessId, transactionId)
        // A charge or a refund not yet settled by the card network: both can be voided.
        if (charge !== undefined && charge.status === "voided") return { _tag: "Voided" as const }
        return { _tag: "Declined" as const, reason: charge ? "not_voidable" : "unknown_transaction" }
      }),
      createSetupIntent: Effect.fn("SandboxGateway.createSetupIntent")(function* ({ businessId, reference }) {
        const context = yield* RequestContext
        const id = randomId("seti_")
        const secret = `${id}_secret_${randomBytes(16).toString("base64url")}`
        yield* store.insertIntent(businessId, id, secret, reference, yield* currentTime)
        return { setupIntentId: id, clientSecret: secret, confirmUrl: `${context.origin}${setupIntentPath(id)}` }
      }),
      setupIntentCard: Effect.fn("SandboxGateway.setupIntentCard")(function* ({ businessId, setupIntentId }) {
        const intent = yield* store.findIntent(businessId, setupIntentId)
        if (!intent) return undefined
        const card = intent.token === null ? undefined : yield* store.findCard(businessId, intent.token)
        return { reference: intent.reference, card: card ? toVaulted(card) : undefined }
      })
    })
  })
)
