import { Schema } from "effect"

export const CUSTOM_FIELD_TYPES = ["select", "text", "boolean"] as const

export const CustomFieldOption = Schema.Struct({ id: Schema.Int, value: Schema.String, position: Schema.Int })

export const CustomFieldSetting = Schema.Struct({
  name: Schema.Literals(["hidden_in_client_mode", "required"]),
  value: Schema.Boolean
}).annotate({ description: "A setting of the field: hidden from clients, required on client sign-up" })

/** A custom field that can be attached to people (compatibility notes, "custom_field"). */
export const CustomField = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  why: Schema.NullOr(Schema.String.annotate({ description: "Why the business asks, shown to clients" })),
  data_type: Schema.Literals(CUSTOM_FIELD_TYPES),
  multi_select: Schema.Boolean,
  custom_field_options: Schema.Array(CustomFieldOption),
  custom_field_settings: Schema.Array(CustomFieldSetting)
}).annotate({ identifier: "CustomField" })
export type CustomField = typeof CustomField.Type

export const CustomFieldRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  why: Schema.NullOr(Schema.String),
  data_type: Schema.Literals(CUSTOM_FIELD_TYPES),
  multi_select: Schema.Boolean,
  hidden_in_client_mode: Schema.Boolean,
  required: Schema.Boolean,
  options: Schema.Array(CustomFieldOption),
  total_count: Schema.Number
})
