import { Schema } from "effect"
import { CUSTOM_FIELD_TYPES } from "../custom-fields/model.ts"
import { Cents, FormattedMoney } from "../../shared/money.ts"
import { PageQuery } from "../../shared/pagination.ts"
import { BooleanInput, Timestamp, TimestampInput, listParam } from "../../shared/schemas.ts"

/**
 * People: the person records of a business (clients, staff, dependents), as client mode and
 * staff mode see them (compatibility notes, "person"), their rows, and the list and search
 * queries. What create and update accept: inputs.ts.
 */

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
