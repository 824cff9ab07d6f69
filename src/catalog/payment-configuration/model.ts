import { Schema } from "effect"
import { CARD_NETWORKS, type VaultingRequirements } from "../../platform/payments/gateway.ts"

/** The spec's payment configuration: what a business accepts and what a card form requires. */
export const PAYMENT_TYPES = ["creditcard", "check", "cash", "ach"] as const

export const PaymentConfigurationWire = Schema.Struct({
  accepted_types: Schema.Array(Schema.String).annotate({
    description: "Among creditcard, check, cash, ach; the business's external methods appear by their name"
  }),
  creditcard: Schema.Struct({
    accepted_card_types: Schema.Array(Schema.String).annotate({ description: "Card networks accepted (visa, master_card, american_express, discover)" }),
    required_fields: Schema.Struct({
      cvv: Schema.Boolean.annotate({ description: "billing-cvv is required" }),
      address: Schema.Boolean.annotate({ description: "billing-address1 and billing-city are required" }),
      postal: Schema.Boolean.annotate({ description: "billing-postal is required" }),
      first_name: Schema.Boolean.annotate({ description: "Always true" }),
      last_name: Schema.Boolean.annotate({ description: "Always true" })
    })
  })
}).annotate({ identifier: "PaymentConfiguration" })
export type PaymentConfigurationWire = typeof PaymentConfigurationWire.Type

/** A bare object under its singular name, as the spec says (an exception to plural root keys). */
export const PaymentConfigurationResponse = Schema.Struct({ payment_configuration: PaymentConfigurationWire })

export const PaymentConfigurationRow = Schema.Struct({
  accepted_types: Schema.Array(Schema.String),
  external_methods: Schema.Array(Schema.String),
  accepted_card_types: Schema.Array(Schema.String),
  cvv_required: Schema.Boolean,
  address_required: Schema.Boolean,
  postal_required: Schema.Boolean
})
export type PaymentConfigurationRow = typeof PaymentConfigurationRow.Type

/** Every business without a row of its own (the demo too): cards of the four networks, cash and check; CVV and postal code required. */
export const DEFAULT_PAYMENT_CONFIGURATION: PaymentConfigurationRow = {
  accepted_types: ["creditcard", "cash", "check"],
  external_methods: [],
  accepted_card_types: [...CARD_NETWORKS],
  cvv_required: true,
  address_required: false,
  postal_required: true
}

export const toPaymentConfigurationWire = (row: PaymentConfigurationRow): PaymentConfigurationWire => ({
  accepted_types: [...row.accepted_types, ...row.external_methods],
  creditcard: {
    accepted_card_types: row.accepted_card_types,
    required_fields: { cvv: row.cvv_required, address: row.address_required, postal: row.postal_required, first_name: true, last_name: true }
  }
})

export const vaultingRequirements = (row: PaymentConfigurationRow): VaultingRequirements => ({
  cvv: row.cvv_required,
  address: row.address_required,
  postal: row.postal_required,
  acceptedCardTypes: row.accepted_card_types
})
