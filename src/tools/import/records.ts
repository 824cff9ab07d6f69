import { Schema } from "effect"
import { STAFF_ROLES } from "../../access/tokens.ts"
import { CUSTOM_FIELD_TYPES } from "../../identity/custom-fields/model.ts"
import { LOCALES } from "../../shared/locale.ts"
import { isValidTimeZone } from "../../shared/time-zones.ts"
import { OptionalText, Text, isHexColor } from "./fields.ts"
import { ImportWorkingHours } from "./schedule.ts"

/**
 * The records of an import document, one Schema each: the business, its locations, custom
 * fields, staff, clients and their dependents (with waivers and forms of payment). The document
 * that holds them, and the rules across records, are in model.ts.
 */
const SUBDOMAIN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/u
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/u
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/u
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

export const Subdomain = Schema.String.check(
  Schema.isPattern(SUBDOMAIN, {
    message: "must be 1-63 lowercase letters, digits or hyphens, not starting or ending with a hyphen"
  })
).annotate({ description: "The business host is `{subdomain}.{BASE_DOMAIN}`", examples: ["demo"] })

export const TimeZone = Schema.String.check(
  Schema.makeFilter((s: string) => isValidTimeZone(s) || `"${s}" is not an IANA time zone (e.g. America/New_York)`)
).annotate({ description: "IANA time zone name", examples: ["America/New_York"] })

export const Email = Schema.String.check(
  Schema.isMaxLength(254, { message: "must be at most 254 characters" }),
  Schema.isPattern(EMAIL, { message: "must be an e-mail address" })
).annotate({ description: "E-mail address; one account per address across businesses" })

const HexColor = Schema.String.check(isHexColor).annotate({ description: "CSS hex color, e.g. #1a73e8" })

const HttpUrl = Schema.String.check(
  Schema.makeFilter((s: string) => {
    const url = URL.parse(s)
    return (url !== null && (url.protocol === "https:" || url.protocol === "http:")) || "must be an absolute http(s) URL"
  })
).annotate({ description: "Absolute http(s) URL" })

const Birthdate = Schema.String.check(
  Schema.makeFilter((s: string) => {
    const match = DATE.exec(s)
    if (!match) return "must be a date, YYYY-MM-DD"
    const date = new Date(`${s}T00:00:00Z`)
    return (!Number.isNaN(date.getTime()) && date.toISOString().startsWith(s)) || "must be a real calendar date, YYYY-MM-DD"
  })
).annotate({ description: "Date of birth, YYYY-MM-DD" })

const Password = Schema.String.check(
  Schema.isMinLength(8, { message: "must be at least 8 characters" }),
  Schema.isMaxLength(200, { message: "must be at most 200 characters" })
).annotate({ description: "Initial password of the account (stored hashed; never replaces an existing account's password)" })

const Key = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_.:-]{1,100}$/u, { message: "must be 1-100 letters, digits, or _ . : -" })
)

export const BrandColors = Schema.Struct({
  accent: Schema.optionalKey(HexColor),
  brand: Schema.optionalKey(HexColor),
  header: Schema.optionalKey(HexColor),
  background: Schema.optionalKey(HexColor),
  client_mode_accent: Schema.optionalKey(HexColor),
  client_mode_brand: Schema.optionalKey(HexColor),
  client_mode_header: Schema.optionalKey(HexColor),
  client_mode_background: Schema.optionalKey(HexColor),
  client_mode_navigation: Schema.optionalKey(HexColor)
})

export const ImportBusiness = Schema.Struct({
  subdomain: Subdomain,
  name: Text(200),
  time_zone: TimeZone,
  currency_code: Schema.String.check(
    Schema.isPattern(/^[A-Z]{3}$/u, { message: "must be an ISO 4217 code in capitals, e.g. USD" })
  ),
  default_locale: Schema.Literals(LOCALES),
  website: Schema.optionalKey(HttpUrl),
  email_address: Schema.optionalKey(Email),
  phone: Schema.optionalKey(Text(50)),
  franchise_parent_subdomain: Schema.optionalKey(
    Subdomain.annotate({ description: "Subdomain of an existing business this one is a franchisee of" })
  ),
  branding: Schema.optionalKey(
    Schema.Struct({
      colors: Schema.optionalKey(BrandColors),
      logo_url: Schema.optionalKey(HttpUrl),
      cover_photo_url: Schema.optionalKey(HttpUrl)
    })
  )
})

export const ImportLocation = Schema.Struct({
  key: Key.annotate({ description: "Unique in the document; clients refer to the location by it" }),
  name: Text(200),
  slug: Schema.optionalKey(
    Schema.String.check(
      Schema.isMaxLength(100, { message: "must be at most 100 characters" }),
      Schema.isPattern(SLUG, { message: "must be lowercase letters and digits separated by single hyphens" })
    ).annotate({ description: "Unique in the business; derived from the name when absent" })
  ),
  address: Schema.optionalKey(Text(500)),
  latitude: Schema.optionalKey(Schema.Number.check(Schema.isBetween({ minimum: -90, maximum: 90 }, { message: "must be between -90 and 90" }))),
  longitude: Schema.optionalKey(
    Schema.Number.check(Schema.isBetween({ minimum: -180, maximum: 180 }, { message: "must be between -180 and 180" }))
  ),
  phone: Schema.optionalKey(Text(50)),
  description: Schema.optionalKey(OptionalText(5000)),
  time_zone: Schema.optionalKey(TimeZone.annotate({ description: "Defaults to the business time zone" })),
  show_in_client_mode: Schema.optionalKey(Schema.Boolean.annotate({ description: "Defaults to true" }))
})

export const ImportCustomField = Schema.Struct({
  name: Text(200).annotate({ description: "Unique in the business" }),
  why: Schema.optionalKey(OptionalText(1000).annotate({ description: "Why the business asks, shown to clients" })),
  data_type: Schema.Literals(CUSTOM_FIELD_TYPES),
  multi_select: Schema.optionalKey(Schema.Boolean.annotate({ description: "Select fields only" })),
  hidden_in_client_mode: Schema.optionalKey(Schema.Boolean),
  required: Schema.optionalKey(Schema.Boolean),
  options: Schema.optionalKey(
    Schema.Array(Text(200)).annotate({ description: "The choices of a select field, in order (required for select)" })
  )
})

export const ImportStaffMember = Schema.Struct({
  email: Email,
  first_name: Text(100),
  last_name: OptionalText(100),
  role: Schema.Literals(STAFF_ROLES),
  bio: Schema.optionalKey(OptionalText(5000)),
  hidden_in_client_mode: Schema.optionalKey(Schema.Boolean),
  password: Schema.optionalKey(Password),
  working_hours: Schema.optionalKey(
    Schema.Array(ImportWorkingHours).annotate({ description: "Weekly hours in which clients can book appointments with them" })
  )
})

/** A waiver the person signed or must sign; an accepted one is signed by the person (a dependent's GuardianWaiver: by their provider). */
export const ImportWaiver = Schema.Struct({
  name: Text(200),
  type: Schema.optionalKey(Schema.Literals(["Waiver", "GuardianWaiver"]).annotate({ description: "Defaults to Waiver" })),
  accepted: Schema.optionalKey(Schema.Boolean.annotate({ description: "Defaults to false" })),
  signing_url: Schema.optionalKey(HttpUrl.annotate({ description: "Where to sign, for one not yet accepted" }))
})

/**
 * An ACH account the person pays with (spec: Form of payment, type ach): a read-only record.
 * The account and routing numbers are masked on import (last four kept); never stored whole.
 */
export const ImportFormOfPayment = Schema.Struct({
  type: Schema.Literal("ach"),
  account_name: Text(200).annotate({ description: "Friendly description" }),
  account_type: Schema.Literals(["savings", "checking"]),
  account_holder_type: Schema.Literals(["personal", "business"]),
  account_number: Schema.String.check(Schema.isPattern(/^\d{4,17}$/u, { message: "must be 4-17 digits" })),
  routing_number: Schema.String.check(Schema.isPattern(/^\d{9}$/u, { message: "must be 9 digits" })),
  first_name: Schema.optionalKey(OptionalText(100).annotate({ description: "Defaults to the person's" })),
  last_name: Schema.optionalKey(OptionalText(100).annotate({ description: "Defaults to the person's" })),
  autobill: Schema.optionalKey(Schema.Boolean.annotate({ description: "The person's default; the first form when none says so" }))
})
export type ImportFormOfPayment = typeof ImportFormOfPayment.Type

const clientFields = {
  waivers: Schema.optionalKey(Schema.Array(ImportWaiver)),
  forms_of_payment: Schema.optionalKey(Schema.Array(ImportFormOfPayment).annotate({ description: "ACH accounts (cards are vaulted, never imported)" })),
  key: Schema.optionalKey(Key.annotate({ description: "Unique among clients and dependents of the document" })),
  email: Schema.optionalKey(Email.annotate({ description: "Links the person to the account with this address (created when missing)" })),
  first_name: Text(100),
  last_name: OptionalText(100),
  middle_name: Schema.optionalKey(OptionalText(100)),
  phone: Schema.optionalKey(Text(50)),
  birthdate: Schema.optionalKey(Birthdate),
  is_member: Schema.optionalKey(Schema.Boolean),
  location: Schema.optionalKey(Key.annotate({ description: "Key of the client's home location" })),
  password: Schema.optionalKey(Password.annotate({ description: "Needs an e-mail address (the account's password)" }))
}

export const ImportDependent = Schema.Struct(clientFields).annotate({ identifier: "ImportDependent" })

export const ImportClient = Schema.Struct({
  ...clientFields,
  dependents: Schema.optionalKey(
    Schema.Array(ImportDependent).annotate({
      description: "People the client acts for (children); without an e-mail a dependent gets no account"
    })
  )
})
export type ImportClient = typeof ImportClient.Type
export type ImportDependent = typeof ImportDependent.Type
export type ImportWaiver = typeof ImportWaiver.Type
