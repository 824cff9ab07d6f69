import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentBusiness } from "../../access/tenant.ts"
import { gatewayUnavailable, requireDeskPerson, requireFrontPerson, saveCard } from "../forms-of-payment/service.ts"
import { PaymentGateway, type VaultedCard } from "../../platform/payments/gateway.ts"
import type { ProcessorPaymentMethod, SaveInput } from "./api.ts"
import { currentTime } from "../../shared/clock.ts"
import { ProcessorConnectRefusals } from "./refusals.ts"

/**
 * processor_connect over the PaymentGateway port. A setup intent carries whom it is for: a
 * client's is theirs only (`person:{id}`), a staff member's may be saved for anyone (`desk`).
 */
type Caller = { readonly mode: "front"; readonly selfId: number } | { readonly mode: "desk" }

const referenceOf = (caller: Caller) => (caller.mode === "front" ? `person:${caller.selfId}` : "desk")

export const frontCaller = Effect.map(requireFrontPerson("me"), (selfId): Caller => ({ mode: "front", selfId }))
export const deskCaller = Effect.succeed<Caller>({ mode: "desk" })

const toData = (id: string, card: VaultedCard): ProcessorPaymentMethod => ({
  id,
  type: "card",
  card: { brand: card.cardType, last4: card.lastFour, exp_month: card.expireMonth, exp_year: card.expireYear },
  billing_details: { name: `${card.firstName} ${card.lastName}`.trim() }
})

export const newSetupIntent = Effect.fn("ProcessorConnect.new")(function* (caller: Caller) {
  const business = yield* CurrentBusiness
  const intent = yield* (yield* PaymentGateway)
    .createSetupIntent({ businessId: business.id, reference: referenceOf(caller) })
    .pipe(Effect.catchTag("GatewayUnavailable", gatewayUnavailable))
  return { setup_intents: [{ id: intent.setupIntentId, client_secret: intent.clientSecret, confirm_url: intent.confirmUrl }] }
})

/** The confirmed card of a payment method the caller may see; unknown or another client's is not found. */
const confirmedCard = Effect.fn("ProcessorConnect.card")(function* (caller: Caller, paymentMethodId: string) {
  const business = yield* CurrentBusiness
  const found = yield* (yield* PaymentGateway)
    .setupIntentCard({ businessId: business.id, setupIntentId: paymentMethodId })
    .pipe(Effect.catchTag("GatewayUnavailable", gatewayUnavailable))
  if (!found || (caller.mode === "front" && found.reference !== referenceOf(caller))) {
    return yield* ProcessorConnectRefusals.processorPaymentMethodNotFound.fail({ id: paymentMethodId })
  }
  if (!found.card) return yield* ProcessorConnectRefusals.processorPaymentMethodUnconfirmed.fail({ id: paymentMethodId })
  return found.card
})

export const getPaymentMethod = Effect.fn("ProcessorConnect.get")(function* (caller: Caller, paymentMethodId: string) {
  return { payment_methods: [toData(paymentMethodId, yield* confirmedCard(caller, paymentMethodId))] }
})

export const savePaymentMethod = Effect.fn("ProcessorConnect.save")(function* (caller: Caller, input: SaveInput) {
  const business = yield* CurrentBusiness
  const sql = yield* SqlClient.SqlClient
  let personId: number
  if (caller.mode === "front") {
    // Oneself only (checked by frontCaller); anyone else is not found.
    if (input.person_id !== undefined && input.person_id !== caller.selfId) {
      return yield* ProcessorConnectRefusals.personNotFound.fail({ id: input.person_id })
    }
    personId = caller.selfId
  } else {
    if (input.person_id === undefined) return yield* ProcessorConnectRefusals.processorPersonRequired.fail()
    personId = yield* requireDeskPerson(input.person_id)
  }
  const card = yield* confirmedCard(caller, input.payment_method_id)
  const at = (yield* currentTime)
  const id = yield* sql.withTransaction(saveCard(business.id, personId, card, at)).pipe(Effect.catchTag("SqlError", Effect.die))
  return { payment_methods: [{ ...toData(input.payment_method_id, card), form_of_payment_id: id }] }
})
