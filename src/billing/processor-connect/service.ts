import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { type Caller, personOf } from "../../access/caller.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { gatewayUnavailable, requireDeskPerson, saveCard } from "../forms-of-payment/service.ts"
import { PaymentGateway, type VaultedCard } from "../../platform/payments/gateway.ts"
import type { ProcessorPaymentMethod, SaveInput } from "./api.ts"
import { currentTime } from "../../shared/clock.ts"
import { ProcessorConnectRefusals } from "./refusals.ts"

/**
 * processor_connect over the PaymentGateway port. A setup intent carries whom it is for: a
 * client's is theirs only (`person:{id}`), a staff member's may be saved for anyone (`desk`).
 */
const referenceOf = (caller: Caller) => (caller._tag === "Staff" ? "desk" : `person:${personOf(caller)}`)

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
  if (!found || (caller._tag !== "Staff" && found.reference !== referenceOf(caller))) {
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
  if (caller._tag === "Staff") {
    if (input.person_id === undefined) return yield* ProcessorConnectRefusals.processorPersonRequired.fail()
    personId = yield* requireDeskPerson(input.person_id)
  } else {
    // Oneself only; anyone else (anyone at all for a visitor, who has no person) is not found.
    const self = personOf(caller)
    if (self === null || (input.person_id !== undefined && input.person_id !== self)) {
      return yield* ProcessorConnectRefusals.personNotFound.fail({ id: input.person_id ?? "me" })
    }
    personId = self
  }
  const card = yield* confirmedCard(caller, input.payment_method_id)
  const at = (yield* currentTime)
  const id = yield* sql.withTransaction(saveCard(business.id, personId, card, at)).pipe(Effect.catchTag("SqlError", Effect.die))
  return { payment_methods: [{ ...toData(input.payment_method_id, card), form_of_payment_id: id }] }
})
