import { Schema } from "effect"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { IntInput, BooleanInput, Timestamp, formatTimestamp } from "../../shared/schemas.ts"

/** Forms of payment (spec: Form of payment): vaulted cards, and ACH accounts the import brought. */
export const FormOfPaymentWire = Schema.Struct({
  id: Schema.Int,
  type: Schema.Literals(["creditcard", "ach"]),
  first_name: Schema.String,
  last_name: Schema.String,
  autobill: Schema.Boolean.annotate({ description: "The person's default form for automatic billing (exactly one while any exist)" }),
  created_at: Timestamp,
  updated_at: Timestamp,
  card_type: Schema.optional(Schema.String.annotate({ description: "Credit card only: visa, master_card, american_express, discover or unknown" })),
  expire_month: Schema.optional(Schema.Int),
  expire_year: Schema.optional(Schema.Int),
  last_four: Schema.optional(Schema.String),
  account_name: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "ACH only" })),
  account_type: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "ACH only: savings or checking" })),
  account_holder_type: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "ACH only: personal or business" })),
  account_number: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "ACH only; obfuscated" })),
  routing_number: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "ACH only; obfuscated" }))
}).annotate({ identifier: "FormOfPayment" })
export type FormOfPaymentWire = typeof FormOfPaymentWire.Type

export const FormOfPaymentRow = Schema.Struct({
  id: Schema.Number,
  person_id: Schema.Number,
  type: Schema.Literals(["creditcard", "ach"]),
  first_name: Schema.String,
  last_name: Schema.String,
  autobill: Schema.Boolean,
  gateway_token: Schema.NullOr(Schema.String),
  card_type: Schema.NullOr(Schema.String),
  expire_month: Schema.NullOr(Schema.Number),
  expire_year: Schema.NullOr(Schema.Number),
  last_four: Schema.NullOr(Schema.String),
  account_name: Schema.NullOr(Schema.String),
  account_type: Schema.NullOr(Schema.String),
  account_holder_type: Schema.NullOr(Schema.String),
  account_number_masked: Schema.NullOr(Schema.String),
  routing_number_masked: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type FormOfPaymentRow = typeof FormOfPaymentRow.Type

export const toFormOfPaymentWire = (row: FormOfPaymentRow): FormOfPaymentWire => {
  const common = {
    id: row.id,
    type: row.type,
    first_name: row.first_name,
    last_name: row.last_name,
    autobill: row.autobill,
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at)
  }
  return row.type === "creditcard"
    ? { ...common, card_type: row.card_type ?? "unknown", expire_month: row.expire_month ?? 0, expire_year: row.expire_year ?? 0, last_four: row.last_four ?? "" }
    : {
        ...common,
        account_name: row.account_name,
        account_type: row.account_type,
        account_holder_type: row.account_holder_type,
        account_number: row.account_number_masked,
        routing_number: row.routing_number_masked
      }
}

/** Keeps the last four characters of an account or routing number: the only form ever stored. */
export const maskNumber = (value: string) => {
  const digits = value.replace(/\s/g, "")
  return digits.length <= 4 ? "*".repeat(digits.length) : `${"*".repeat(digits.length - 4)}${digits.slice(-4)}`
}

export const FormsOfPayment = Schema.Struct({ form_of_payments: Schema.Array(FormOfPaymentWire) })
export const FormOfPaymentPage = Schema.Struct({ form_of_payments: Schema.Array(FormOfPaymentWire), ...PageFields })
export const FormOfPaymentListQuery = Schema.Struct(PageQuery)
export type FormOfPaymentListQuery = typeof FormOfPaymentListQuery.Type

/** Step one: `type` is checked by the service (only creditcard; anything else is a 422 naming it). */
export const FormOfPaymentCreateInput = Schema.Struct({
  type: Schema.optional(Schema.NullOr(Schema.String).annotate({ description: "Required; only value `creditcard`" }))
})
export type FormOfPaymentCreateInput = typeof FormOfPaymentCreateInput.Type

export const VaultingStarted = Schema.Struct({
  form_of_payments: Schema.Array(
    Schema.Struct({
      type: Schema.Literal("creditcard"),
      form_url: Schema.String.annotate({ description: "The gateway's single-use card form (vaulting step two)" }),
      expires_at: Timestamp.annotate({ description: "Ten minutes after step one: complete step three before, or start again" })
    })
  )
})

export const FormOfPaymentUpdateInput = Schema.Struct({
  id: Schema.optional(IntInput.annotate({ description: "When given, the path's id" })),
  autobill: Schema.optional(BooleanInput.annotate({ description: "true makes it the default and turns the others off; false only by turning another on" }))
})
export type FormOfPaymentUpdateInput = typeof FormOfPaymentUpdateInput.Type

