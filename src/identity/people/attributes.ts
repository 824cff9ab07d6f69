import { Effect } from "effect"
import type { Message } from "../../shared/errors.ts"
import type { CustomFieldDefinitionRow, CustomFieldValueWrite, PersonRow, PersonWrite } from "./model.ts"
import type { CustomFieldValueInput, PersonAttributes } from "./inputs.ts"
import { PeopleRepo } from "./repo.ts"
import { PeopleRefusals } from "./refusals.ts"

/**
 * Person request attributes → the columns and custom field values to write, checking every
 * rule at once: each failed rule adds one message (the 422 lists them all). Text is trimmed;
 * `""` and `null` clear an attribute (forms cannot send null); absent keys are left unchanged
 * on update and defaulted on create.
 */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u

const MAX_LENGTH = {
  pronoun: 50,
  first_name: 100,
  middle_name: 100,
  last_name: 100,
  email: 254,
  phone: 50,
  address: 500,
  guardian_name: 200,
  guardian_email: 254
} as const
const CUSTOM_TEXT_MAX = 5000

const TRUTHY = new Set(["true", "1", "t", "yes", "on"])
const FALSY = new Set(["false", "0", "f", "no", "off"])

/** undefined: absent (unchanged); null: cleared; else the trimmed text. */
const cleanText = (value: string | null | undefined): string | null | undefined =>
  value === undefined ? undefined : value === null ? null : value.trim() === "" ? null : value.trim()

export interface PreparedPerson {
  readonly write: PersonWrite
  readonly customFields: ReadonlyArray<CustomFieldValueWrite>
  readonly sendInvite: boolean
  /** The e-mail address the person has after the write (for the account link and invitation). */
  readonly email: string | null
  /** The barcode set to write (trimmed, without duplicates); undefined leaves it unchanged. */
  readonly barcodes?: ReadonlyArray<string>
}

export interface PrepareOptions {
  /** Field names in messages are prefixed with this (`dependents[0].`). */
  readonly prefix: string
  /** The person being updated; undefined when creating. */
  readonly existing?: PersonRow | undefined
  /** Create defaults: home location and joined_at when the request leaves them out. */
  readonly defaults?: { readonly location_id: number | null; readonly joined_at: Date }
  /** E-mail addresses claimed earlier in the same request (a person and their new dependents). */
  readonly claimedEmails: Set<string>
}

export const prepareAttributes = Effect.fn("People.prepareAttributes")(function* (
  businessId: number,
  input: PersonAttributes,
  options: PrepareOptions,
  messages: Array<Message>
) {
  const repo = yield* PeopleRepo
  const creating = options.existing === undefined
  const field = (name: string) => `${options.prefix}${name}`
  const write: { -readonly [K in keyof PersonWrite]: PersonWrite[K] } = {}

  const text = <K extends keyof typeof MAX_LENGTH>(key: K, value: string | null | undefined) => {
    const cleaned = cleanText(value)
    if (cleaned !== undefined && cleaned !== null && cleaned.length > MAX_LENGTH[key]) {
      messages.push(PeopleRefusals.fieldTooLong.message({ field: field(key), max: MAX_LENGTH[key] }))
    }
    return cleaned
  }

  for (const key of ["first_name", "last_name"] as const) {
    const value = text(key, input[key])
    if (value === null || (value === undefined && creating)) messages.push(PeopleRefusals.fieldRequired.message({ field: field(key) }))
    else if (value !== undefined) write[key] = value
  }
  for (const key of ["pronoun", "middle_name", "phone", "address", "guardian_name", "guardian_email"] as const) {
    const value = text(key, input[key])
    if (value !== undefined) write[key] = value
  }

  const email = text("email", input.email)
  if (email !== undefined && email !== null) {
    if (!EMAIL.test(email)) {
      messages.push(PeopleRefusals.fieldIsInvalid.message({ field: field("email") }))
    } else if (
      options.claimedEmails.has(email.toLowerCase()) ||
      (yield* repo.emailTaken({ businessId, email, exceptPersonId: options.existing?.id ?? null })) !== undefined
    ) {
      messages.push(PeopleRefusals.fieldTaken.message({ field: field("email") }))
    } else {
      options.claimedEmails.add(email.toLowerCase())
    }
  }
  if (email !== undefined) write.email = email

  if (input.birthdate !== undefined) write.birthdate = input.birthdate === null || input.birthdate === "" ? null : input.birthdate

  if (input.location_id !== undefined && input.location_id !== null && input.location_id !== "") {
    if ((yield* repo.location({ businessId, id: input.location_id })) !== undefined) write.location_id = input.location_id
    else messages.push(PeopleRefusals.fieldIdNotFound.message({ field: field("location_id"), id: input.location_id }))
  } else if (input.location_id !== undefined) {
    write.location_id = null
  } else if (options.defaults) {
    write.location_id = options.defaults.location_id
  }

  if (input.joined_at !== undefined) write.joined_at = input.joined_at
  else if (options.defaults) write.joined_at = options.defaults.joined_at

  const finalEmail = email !== undefined ? email : (options.existing?.email ?? null)
  const sendInvite = input.send_invite === true
  if (sendInvite && finalEmail === null) messages.push(PeopleRefusals.inviteNeedsEmail.message({ field: field("send_invite") }))

  const customFields = yield* prepareCustomFields(businessId, input.custom_fields ?? [], messages)
  const barcodes = input.barcodes === undefined ? undefined : [...new Set((input.barcodes ?? []).map((code) => code.trim()).filter((code) => code !== ""))]
  if (barcodes?.some((code) => code.length > BARCODE_MAX)) messages.push(PeopleRefusals.fieldTooLong.message({ field: field("barcodes"), max: BARCODE_MAX }))
  return { write, customFields, sendInvite, email: finalEmail, ...(barcodes === undefined ? {} : { barcodes }) } satisfies PreparedPerson
})

/** A barcode's longest length (a database check too). */
const BARCODE_MAX = 100

/** Custom field values checked against each field's type and options. A field given twice: the last value wins. */
const prepareCustomFields = Effect.fn("People.prepareCustomFields")(function* (
  businessId: number,
  inputs: ReadonlyArray<CustomFieldValueInput>,
  messages: Array<Message>
) {
  if (inputs.length === 0) return []
  const byId = new Map(inputs.map((input) => [input.id, input]))
  const definitions = new Map(
    (yield* (yield* PeopleRepo).customFieldDefinitions({ businessId, ids: [...byId.keys()] })).map((d) => [d.id, d])
  )
  const writes: Array<CustomFieldValueWrite> = []
  for (const [id, input] of byId) {
    const definition = definitions.get(id)
    if (!definition) {
      messages.push(PeopleRefusals.customFieldNotFound.message({ id }))
      continue
    }
    const write = customFieldValue(definition, input.value, messages)
    if (write) writes.push(write)
  }
  return writes
})

const isEmptyValue = (value: CustomFieldValueInput["value"]) =>
  value === undefined || value === null || (typeof value === "string" && value.trim() === "") || (Array.isArray(value) && value.length === 0)

const customFieldValue = (
  definition: CustomFieldDefinitionRow,
  value: CustomFieldValueInput["value"],
  messages: Array<Message>
): CustomFieldValueWrite | undefined => {
  const base = { customFieldId: definition.id, text: null, boolean: null, optionIds: [], clear: false }
  if (isEmptyValue(value)) return { ...base, clear: true }
  const name = definition.name
  switch (definition.data_type) {
    case "text": {
      if (typeof value !== "string" && typeof value !== "number") {
        messages.push(PeopleRefusals.fieldMustBeString.message({ field: name }))
        return undefined
      }
      const text = String(value).trim()
      if (text.length > CUSTOM_TEXT_MAX) {
        messages.push(PeopleRefusals.fieldTooLong.message({ field: name, max: CUSTOM_TEXT_MAX }))
        return undefined
      }
      return { ...base, text }
    }
    case "boolean": {
      if (typeof value === "boolean") return { ...base, boolean: value }
      const word = typeof value === "string" || typeof value === "number" ? String(value).trim().toLowerCase() : ""
      if (TRUTHY.has(word)) return { ...base, boolean: true }
      if (FALSY.has(word)) return { ...base, boolean: false }
      messages.push(PeopleRefusals.fieldMustBeBoolean.message({ field: name }))
      return undefined
    }
    case "select": {
      const tokens = selectTokens(definition, value)
      if (tokens === undefined) {
        messages.push(PeopleRefusals.fieldIsInvalid.message({ field: name }))
        return undefined
      }
      const optionIds: Array<number> = []
      let valid = true
      for (const token of tokens) {
        const option = findOption(definition, token)
        if (option === undefined) {
          messages.push(PeopleRefusals.fieldOptionInvalid.message({ field: name, value: String(token) }))
          valid = false
        } else if (!optionIds.includes(option)) {
          optionIds.push(option)
        }
      }
      if (!valid) return undefined
      if (!definition.multi_select && optionIds.length > 1) {
        messages.push(PeopleRefusals.fieldSingleOption.message({ field: name }))
        return undefined
      }
      return { ...base, optionIds }
    }
  }
}

/** The options named by a select value: one, a list, or (multi-select) comma-separated in one string. */
const selectTokens = (
  definition: CustomFieldDefinitionRow,
  value: CustomFieldValueInput["value"]
): ReadonlyArray<string | number> | undefined => {
  if (typeof value === "number") return [value]
  if (typeof value === "boolean" || value === null || value === undefined) return undefined
  if (typeof value !== "string") return value.filter((token) => String(token).trim() !== "")
  // A whole option text may itself hold a comma ("Yes, please"): try it before splitting.
  if (!definition.multi_select || findOption(definition, value) !== undefined) return [value]
  return value.split(",").map((token) => token.trim()).filter((token) => token !== "")
}

/** An option by id (a number or digits) or by its text, case-insensitively. */
const findOption = (definition: CustomFieldDefinitionRow, token: string | number): number | undefined => {
  const text = String(token).trim()
  if (/^\d+$/.test(text)) {
    const byId = definition.options.find((option) => option.id === Number(text))
    if (byId) return byId.id
  }
  return definition.options.find((option) => option.value.trim().toLowerCase() === text.toLowerCase())?.id
}
