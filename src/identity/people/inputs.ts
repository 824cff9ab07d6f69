import { Schema } from "effect"
import { BooleanInput, IntInput, TimestampInput } from "../../shared/schemas.ts"

/**
 * The person request attributes (spec, "Person (request attributes)") as JSON or Rails-style
 * form bodies: what create and update of a person accept.
 */


const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** A real calendar date, `YYYY-MM-DD` (2015-02-30 is refused, not a database error). */
export const isCalendarDate = (s: string): boolean => {
  const match = DATE.exec(s)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/**
 * Text attributes: a string; `null` (JSON) or `""` (forms) clears the attribute. Optional keys
 * (not `optional`, which adds `undefined` to a union) keep the 400 messages precise.
 */
const TextInput = Schema.optionalKey(Schema.NullOr(Schema.String).annotate({ messageKey: "field_must_be_string" }))

/** A date, or `""`/`null` to clear it (forms cannot send null). */
const DateInput = Schema.optionalKey(
  Schema.NullOr(
    Schema.String.check(Schema.makeFilter((s: string) => s === "" || isCalendarDate(s), { messageKey: "field_must_be_date" }))
  ).annotate({ messageKey: "field_must_be_date", description: "Date, YYYY-MM-DD" })
)

/** An id, or `""`/`null` to clear it. */
const OptionalIdInput = Schema.optionalKey(
  Schema.NullOr(Schema.Union([IntInput, Schema.Literal("")])).annotate({
    messageKey: "field_must_be_integer",
    description: "A record id; null or empty clears it"
  })
)

/** A list of ids; Rails forms send an empty list as `person[dependent_ids][]=`, one `""` item. */
const IdListInput = Schema.optionalKey(
  Schema.Array(Schema.Union([IntInput, Schema.Literal("")]).annotate({ messageKey: "field_must_be_integer" }))
)

export const CustomFieldValueInput = Schema.Struct({
  id: IntInput.annotate({ description: "The custom field's id (GET /api/v2/desk/custom_fields)" }),
  value: Schema.optional(
    Schema.NullOr(
      Schema.Union([Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.Union([Schema.String, Schema.Number]))])
    ).annotate({
      description:
        "Text fields: the text. Boolean fields: true/false. Select fields: an option id or the option's text; " +
        "multi-select fields: a list of them, or one string of comma-separated option ids. null or empty clears the value."
    })
  )
}).annotate({ identifier: "PersonCustomFieldInput" })
export type CustomFieldValueInput = typeof CustomFieldValueInput.Type

const personFields = {
  pronoun: TextInput,
  first_name: TextInput.annotate({ description: "Required" }),
  middle_name: TextInput,
  last_name: TextInput.annotate({ description: "Required" }),
  email: TextInput.annotate({ description: "E-mail address (format enforced, unique in the business); links the person to the account of that address" }),
  address: TextInput,
  phone: TextInput,
  birthdate: DateInput,
  guardian_name: TextInput,
  guardian_email: TextInput,
  location_id: OptionalIdInput.annotate({ description: "Home location" }),
  joined_at: Schema.optional(TimestampInput.annotate({ description: "Defaults to now" })),
  send_invite: Schema.optional(BooleanInput.annotate({ description: "Mail an invitation to choose a password (needs an e-mail address)" })),
  skip_complimentary_passes: Schema.optional(
    BooleanInput.annotate({ description: "Create only: true skips the complimentary passes the business gives new clients (default false)" })
  ),
  custom_fields: Schema.optionalKey(Schema.Array(CustomFieldValueInput)),
  barcodes: Schema.optionalKey(
    Schema.NullOr(Schema.Array(Schema.String)).annotate({
      description: "The person's barcodes (card or key tag codes, at most 100 characters each), found by search; replaces the set ([] or null clears it); absent leaves it unchanged"
    })
  )
}

export const DependentInput = Schema.Struct(personFields).annotate({ identifier: "PersonDependentInput" })
export type DependentInput = typeof DependentInput.Type

export const PersonCreateInput = Schema.Struct({
  ...personFields,
  dependents: Schema.optionalKey(
    Schema.Array(DependentInput).annotate({ description: "New people created as dependents of this one" })
  )
}).annotate({ identifier: "PersonCreateInput" })
export type PersonCreateInput = typeof PersonCreateInput.Type

export const PersonUpdateInput = Schema.Struct({
  ...personFields,
  dependent_ids: IdListInput.annotate({
    description: "Replaces the set of dependents ([] removes all); absent leaves it unchanged"
  }),
  provider_ids: IdListInput.annotate({ description: "Sets the single provider ([] removes it); absent leaves it unchanged" })
}).annotate({ identifier: "PersonUpdateInput" })
export type PersonUpdateInput = typeof PersonUpdateInput.Type

/** What create and update have in common: the attributes of one person. */
export type PersonAttributes = DependentInput
