import { Schema } from "effect"
import { PageQuery } from "../../shared/pagination.ts"
import { Timestamp } from "../../shared/schemas.ts"

/** The account of a token (spec, "Account"). */
export const Account = Schema.Struct({
  id: Schema.Int,
  email: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email_confirmed_at: Schema.NullOr(Timestamp)
}).annotate({ identifier: "Account" })

export const AccountRow = Schema.Struct({
  id: Schema.Number,
  email: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email_confirmed_at: Schema.NullOr(Schema.Date)
})

/** `POST /account/passwords`: the e-mail, bare or wrapped in `account` as other bodies are. */
export const PasswordRequest = Schema.Struct({
  email: Schema.optional(Schema.String),
  account: Schema.optional(Schema.Struct({ email: Schema.optional(Schema.String) }))
})

/** Pages of the businesses an account belongs to. */
export const AccountBusinessesQuery = Schema.Struct(PageQuery)
export type AccountBusinessesQuery = typeof AccountBusinessesQuery.Type
