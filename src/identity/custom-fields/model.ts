import { Schema } from "effect"

export const CUSTOM_FIELD_TYPES = ["select", "text", "boolean"] as const

export const CustomFieldOption = Schema.Struct({ id: Schema.Int, value: Schema.String, position: Schema.Int })

const Requirement = Schema.Literals(["optional", "required", "hidden"]).annotate({
  description: "optional: asked; required: must be answered; hidden: not asked"
})

/**
 * The settings of a field per context, as the public API shapes them: one item per context,
 * told apart by `custom_field_context_type`, each with its own keys. All three derive from
 * the field's two stored flags (hidden from clients, required on client sign-up).
 */
export const CustomFieldSetting = Schema.Union([
  Schema.Struct({
    custom_field_context_type: Schema.Literal("ClientRegistrationSettings"),
    client_managers: Requirement.annotate({ description: "Client sign-up, by the client for themself" }),
    non_client_managers: Requirement.annotate({ description: "Client sign-up, by someone else for them" }),
    dependents: Requirement.annotate({ description: "Adding a dependent" })
  }).annotate({ identifier: "ClientRegistrationSettings" }),
  Schema.Struct({
    custom_field_context_type: Schema.Literal("ClientProfileSettings"),
    visibility: Schema.Literals(["everyone", "staff"]).annotate({ description: "Who sees the value on the profile" })
  }).annotate({ identifier: "ClientProfileSettings" }),
  Schema.Struct({
    custom_field_context_type: Schema.Literal("StaffRegistrationSettings"),
    staff_registration: Requirement.annotate({ description: "Staff adding a person" })
  }).annotate({ identifier: "StaffRegistrationSettings" })
]).annotate({ description: "The field's settings in one context (custom_field_context_type)" })
export type CustomFieldSetting = typeof CustomFieldSetting.Type

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
