import { Context, Data, type Effect } from "effect"

/**
 * A payment gateway: where cards are vaulted and charged, so that card data never reaches the
 * service (spec: Forms of payment, "uses a payment gateway so that card data never reaches the
 * service"). Shaped after hosted-form gateways:
 * - `startVaulting` opens a single-use hosted card form (valid until `expiresAt`) whose POST
 *   sends the browser on (303) to `returnUrl`; `vaultResult` is the gateway's word on what the
 *   form received: a reusable token with the card's shown fields, or the problems by field.
 *   The return to `returnUrl` is only a hint to look, never proof.
 * - `charge`, `refund`, `void` move money on a token; one `idempotencyKey` is one operation
 *   (a retry answers the first outcome). `void` undoes a charge or a refund by its transaction
 *   id. A decline is an answer, not a failure.
 * - `createSetupIntent` / `setupIntentCard`: the processor_connect flow (the processor's own
 *   browser library confirms a setup intent with its client secret; the service then saves it).
 * Any failure to reach the gateway is `GatewayUnavailable`: callers answer a 4xx asking to try
 * later, never a 500. Another processor is one more implementation of `PaymentGatewayShape`
 * chosen by configuration (src/platform/payments/live.ts).
 */
export class GatewayUnavailable extends Data.TaggedError("GatewayUnavailable")<{ readonly reason: string }> {}

/** The spec's card_type values. */
export const CARD_NETWORKS = ["visa", "master_card", "american_express", "discover"] as const
export type CardNetwork = (typeof CARD_NETWORKS)[number] | "unknown"

/** What the business requires of a card form (its payment configuration). */
export interface VaultingRequirements {
  readonly cvv: boolean
  readonly address: boolean
  readonly postal: boolean
  readonly acceptedCardTypes: ReadonlyArray<string>
}

/** A vaulted card: never its number or CVV. */
export interface VaultedCard {
  readonly token: string
  readonly cardType: CardNetwork
  readonly lastFour: string
  readonly expireMonth: number
  readonly expireYear: number
  readonly firstName: string
  readonly lastName: string
}

/** `field` is the form field's name (`billing-cc-number`), or null for the card as a whole. */
export interface VaultProblem {
  readonly field: string | null
  readonly problem: "blank" | "invalid" | "expired" | "not_accepted" | "declined"
}

export type VaultResult =
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Vaulted"; readonly card: VaultedCard }
  | { readonly _tag: "Failed"; readonly problems: ReadonlyArray<VaultProblem> }

export type ChargeResult =
  | { readonly _tag: "Succeeded"; readonly transactionId: string }
  | { readonly _tag: "Declined"; readonly reason: string }

export interface ChargeInput {
  readonly businessId: number
  readonly token: string
  readonly amountCents: number
  readonly currency: string
  readonly idempotencyKey: string
  readonly description: string
}

export interface PaymentGatewayShape {
  readonly startVaulting: (input: {
    readonly businessId: number
    /** Absolute; where the form sends the browser once submitted. */
    readonly returnUrl: string
    readonly expiresAt: Date
    readonly requirements: VaultingRequirements
  }) => Effect.Effect<{ readonly formId: string; readonly formUrl: string }, GatewayUnavailable>
  readonly vaultResult: (input: { readonly businessId: number; readonly formId: string }) => Effect.Effect<VaultResult, GatewayUnavailable>
  readonly charge: (input: ChargeInput) => Effect.Effect<ChargeResult, GatewayUnavailable>
  readonly refund: (input: {
    readonly businessId: number
    readonly transactionId: string
    readonly amountCents: number
    readonly idempotencyKey: string
  }) => Effect.Effect<ChargeResult, GatewayUnavailable>
  readonly void: (input: { readonly businessId: number; readonly transactionId: string }) => Effect.Effect<
    { readonly _tag: "Voided" } | { readonly _tag: "Declined"; readonly reason: string },
    GatewayUnavailable
  >
  /** `reference`: the caller's note on whom the intent is for, answered back with the card. */
  readonly createSetupIntent: (input: { readonly businessId: number; readonly reference: string }) => Effect.Effect<
    { readonly setupIntentId: string; readonly clientSecret: string; readonly confirmUrl: string },
    GatewayUnavailable
  >
  /** The setup intent and the card it saved once confirmed; undefined when unknown. */
  readonly setupIntentCard: (input: { readonly businessId: number; readonly setupIntentId: string }) => Effect.Effect<
    { readonly reference: string; readonly card: VaultedCard | undefined } | undefined,
    GatewayUnavailable
  >
}

export class PaymentGateway extends Context.Service<PaymentGateway, PaymentGatewayShape>()("studio/PaymentGateway") {}
