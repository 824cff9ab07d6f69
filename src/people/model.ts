import { Schema } from "effect"
import { CUSTOM_FIELD_TYPES } from "../custom-fields/model.ts"
import { Cents, FormattedMoney } from "../shared/money.ts"
import { PageQuery } from "../shared/pagination.ts"
import { BooleanInput, IntInput, Timestamp, TimestampInput, listParam } from "../shared/schemas.ts"

/**
 * People: the person records of a business (clients, staff, dependents), as client mode and
 * staff mode see them (compatibility notes, "person"), and the person request attributes
 * (spec, "Person (request attributes)") as JSON or Rails-style form bodies.
 */

// ---------------------------------------------------------------------------------------------
// Requests

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

// ---------------------------------------------------------------------------------------------
// Responses

const ImageUrl = Schema.String.annotate({ description: "Absolute image URL" })

export const ProfilePhoto = Schema.NullOr(
  Schema.Struct({ x50: ImageUrl, x50_2x: ImageUrl, x75: ImageUrl, x75_2x: ImageUrl, full: ImageUrl })
).annotate({ description: "The photo in the sizes clients show; null without a photo" })

export const PersonCustomField = Schema.Struct({
  id: Schema.Int.annotate({ description: "The custom field's id" }),
  name: Schema.String,
  data_type: Schema.Literals(CUSTOM_FIELD_TYPES),
  value: Schema.NullOr(Schema.String).annotate({
    description: "Text: the text; boolean: \"true\" or \"false\"; select: the chosen options' texts, comma-separated"
  }),
  custom_field_option_ids: Schema.Array(Schema.Int).annotate({ description: "Select fields: the chosen options" })
}).annotate({ identifier: "PersonCustomField" })
export type PersonCustomField = typeof PersonCustomField.Type

/**
 * A custom field value as the public documentation's person examples show it under
 * `person_custom_fields` (older clients read it; `custom_fields` is the current key). A person
 * has at most one value per field, so the value's `id` is its field's id.
 */
export const PersonCustomFieldValue = Schema.Struct({
  id: Schema.Int.annotate({ description: "The value's id: a person holds one value per field, so this is the custom field's id" }),
  custom_field_id: Schema.Int,
  name: Schema.String.annotate({ description: "The custom field's name" }),
  value: Schema.NullOr(Schema.String).annotate({ description: "As in custom_fields" })
}).annotate({ identifier: "PersonCustomFieldValue" })
export type PersonCustomFieldValue = typeof PersonCustomFieldValue.Type

/** A person as client mode sees it: themself or one of their dependents. */
export const PersonFront = Schema.Struct({
  id: Schema.Int,
  name: Schema.String.annotate({ description: "First and last name" }),
  first_name: Schema.String,
  middle_name: Schema.NullOr(Schema.String),
  last_name: Schema.String,
  email: Schema.NullOr(Schema.String),
  birthdate: Schema.NullOr(Schema.String.annotate({ description: "YYYY-MM-DD" })),
  profile_photo: ProfilePhoto,
  custom_fields: Schema.Array(PersonCustomField).annotate({ description: "Values set for this person; fields hidden in client mode are left out" }),
  person_custom_fields: Schema.Array(PersonCustomFieldValue).annotate({
    description: "The same values in the shape the public documentation's examples show (id, custom_field_id, name, value)"
  }),
  secondary_info_field: Schema.String.annotate({
    description: "A short line to show under the name: the current membership's name, or \"No Membership\""
  })
}).annotate({ identifier: "PersonFront" })
export type PersonFront = typeof PersonFront.Type

export const PersonRef = Schema.Struct({ id: Schema.Int, name: Schema.String }).annotate({ identifier: "PersonRef" })
export type PersonRef = typeof PersonRef.Type

/** A person as staff see it: every attribute, hidden custom fields included. */
export const PersonDesk = Schema.Struct({
  ...PersonFront.fields,
  pronoun: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  guardian_name: Schema.NullOr(Schema.String),
  guardian_email: Schema.NullOr(Schema.String),
  is_member: Schema.Boolean.annotate({ description: "Holds a current membership" }),
  membership: Schema.NullOr(Schema.String).annotate({ description: "The current membership's name; null without one" }),
  joined_at: Timestamp,
  timezone: Schema.String.annotate({ description: "The person's IANA time zone, else the business's" }),
  hidden_at: Schema.NullOr(Timestamp),
  deleted_at: Schema.NullOr(Timestamp),
  business_id: Schema.Int,
  location_id: Schema.NullOr(Schema.Int),
  location: Schema.NullOr(Schema.Struct({ id: Schema.Int, name: Schema.String, slug: Schema.String })),
  created_at: Timestamp,
  updated_at: Timestamp,
  dependents: Schema.optionalKey(
    Schema.Array(PersonRef).annotate({ description: "People this person acts for; on lists with include_relationships=true" })
  ),
  providers: Schema.optionalKey(
    Schema.Array(PersonRef).annotate({ description: "Who acts for this person (at most one); on lists with include_relationships=true" })
  ),
  account_balance_cents: Schema.optionalKey(Cents.annotate({ description: "With include_balances=true" })),
  account_balance: Schema.optionalKey(FormattedMoney.annotate({ description: "With include_balances=true" }))
}).annotate({ identifier: "PersonDesk" })
export type PersonDesk = typeof PersonDesk.Type

export const PersonSearchResult = Schema.Struct({
  score: Schema.Number.annotate({ description: "Relevance; higher is better" }),
  person: PersonDesk
}).annotate({ identifier: "PersonSearchResult" })

// ---------------------------------------------------------------------------------------------
// Rows

export const PersonRow = Schema.Struct({
  id: Schema.Number,
  business_id: Schema.Number,
  account_id: Schema.NullOr(Schema.Number),
  pronoun: Schema.NullOr(Schema.String),
  first_name: Schema.String,
  middle_name: Schema.NullOr(Schema.String),
  last_name: Schema.String,
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  birthdate: Schema.NullOr(Schema.String),
  guardian_name: Schema.NullOr(Schema.String),
  guardian_email: Schema.NullOr(Schema.String),
  profile_photo_url: Schema.NullOr(Schema.String),
  joined_at: Schema.Date,
  time_zone: Schema.NullOr(Schema.String),
  location_id: Schema.NullOr(Schema.Number),
  location_name: Schema.NullOr(Schema.String),
  location_slug: Schema.NullOr(Schema.String),
  hidden_at: Schema.NullOr(Schema.Date),
  deleted_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type PersonRow = typeof PersonRow.Type

export const CustomFieldValueRow = Schema.Struct({
  person_id: Schema.Number,
  custom_field_id: Schema.Number,
  name: Schema.String,
  data_type: Schema.Literals(CUSTOM_FIELD_TYPES),
  text_value: Schema.NullOr(Schema.String),
  boolean_value: Schema.NullOr(Schema.Boolean),
  options: Schema.Array(Schema.Struct({ id: Schema.Number, value: Schema.String }))
})
export type CustomFieldValueRow = typeof CustomFieldValueRow.Type

export const RelationshipRow = Schema.Struct({
  provider_id: Schema.Number,
  dependent_id: Schema.Number,
  provider_name: Schema.String,
  dependent_name: Schema.String
})
export type RelationshipRow = typeof RelationshipRow.Type

/** A custom field with its options, to validate values against. */
export const CustomFieldDefinitionRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  data_type: Schema.Literals(CUSTOM_FIELD_TYPES),
  multi_select: Schema.Boolean,
  options: Schema.Array(Schema.Struct({ id: Schema.Number, value: Schema.String }))
})
export type CustomFieldDefinitionRow = typeof CustomFieldDefinitionRow.Type

// ---------------------------------------------------------------------------------------------
// List and search parameters

/** Sortable attributes of the staff person list (spec: `updated_at`, `created_at`, `id`; we add names). */
export const PERSON_SORT_KEYS = ["id", "created_at", "updated_at", "first_name", "last_name"] as const
export type PersonSortKey = (typeof PERSON_SORT_KEYS)[number]
export interface PersonSort {
  readonly key: PersonSortKey
  readonly descending: boolean
}

export const SEARCH_FIELDS = ["name", "email", "phone", "barcodes"] as const
export type SearchField = (typeof SEARCH_FIELDS)[number]

export const PersonListQuery = Schema.Struct({
  ...PageQuery,
  created_since: Schema.optional(TimestampInput),
  updated_since: Schema.optional(TimestampInput),
  is_member: Schema.optional(BooleanInput.annotate({ description: "Only people with (true) or without (false) a current membership" })),
  include_relationships: Schema.optional(BooleanInput.annotate({ description: "Add dependents[] and providers[]" })),
  include_balances: Schema.optional(BooleanInput.annotate({ description: "Add account_balance_cents and account_balance" })),
  sort: Schema.optional(
    listParam(
      Schema.String,
      "Comma-separated attributes among id, created_at, updated_at, first_name, last_name; ascending unless prefixed by a minus (-created_at). Default id."
    )
  )
})
export type PersonListQuery = typeof PersonListQuery.Type

export const PersonSearchQuery = Schema.Struct({
  q: Schema.String.check(Schema.makeFilter((s: string) => s.trim() !== "", { messageKey: "field_required" })).annotate({
    description: "What to look for; phone numbers by their digits, complete numbers only"
  }),
  fields: Schema.optional(listParam(Schema.String, "Comma-separated among name, email, phone, barcodes; default all")),
  ...PageQuery
})
export type PersonSearchQuery = typeof PersonSearchQuery.Type

export interface PersonListFilters {
  readonly createdSince?: Date | undefined
  readonly updatedSince?: Date | undefined
  readonly isMember?: boolean | undefined
  /** The business-local date `isMember` is evaluated on. */
  readonly today: string
}

/** A value to write: exactly one of text, boolean or option ids, or a clearing (all empty). */
export interface CustomFieldValueWrite {
  readonly customFieldId: number
  readonly text: string | null
  readonly boolean: boolean | null
  readonly optionIds: ReadonlyArray<number>
  readonly clear: boolean
}

/** The columns of `people` a create or update writes (an absent key: unchanged). */
export const PersonWrite = Schema.Struct({
  pronoun: Schema.optional(Schema.NullOr(Schema.String)),
  first_name: Schema.optional(Schema.String),
  middle_name: Schema.optional(Schema.NullOr(Schema.String)),
  last_name: Schema.optional(Schema.String),
  email: Schema.optional(Schema.NullOr(Schema.String)),
  phone: Schema.optional(Schema.NullOr(Schema.String)),
  address: Schema.optional(Schema.NullOr(Schema.String)),
  birthdate: Schema.optional(Schema.NullOr(Schema.String)),
  guardian_name: Schema.optional(Schema.NullOr(Schema.String)),
  guardian_email: Schema.optional(Schema.NullOr(Schema.String)),
  location_id: Schema.optional(Schema.NullOr(Schema.Number)),
  joined_at: Schema.optional(Schema.Date),
  account_id: Schema.optional(Schema.NullOr(Schema.Number))
})
export type PersonWrite = typeof PersonWrite.Type
