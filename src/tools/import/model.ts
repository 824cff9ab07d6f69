import { Schema } from "effect"
import { STAFF_ROLES } from "../../access/tokens.ts"
import { CUSTOM_FIELD_TYPES } from "../../identity/custom-fields/model.ts"
import { LOCALES } from "../../shared/locale.ts"
import { isValidTimeZone } from "../../shared/time-zones.ts"
import { OptionalText, Text, isHexColor } from "./fields.ts"
import { ImportEvent, ImportService, ImportWorkingHours, scheduleProblems } from "./schedule.ts"
import { ImportPlanProduct, ImportRevenueCategory, ImportSalesTax, catalogProblems } from "./catalog.ts"
import { ImportPayPeriod, ImportPayRate, payRateProblems } from "./pay-rates.ts"

/**
 * The import format: one JSON document describing a whole business (settings, locations,
 * custom fields, staff, clients and their dependents). One Schema validates it and documents
 * it; the cross-references inside the document are checked by the document's own filter, so
 * every problem is reported with its path in one pass. Records refer to each other by `key`
 * (a location key), never by database id: the document can be written before the business
 * exists.
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

const BaseDocument = Schema.Struct({
  business: ImportBusiness,
  locations: Schema.optionalKey(Schema.Array(ImportLocation)),
  custom_fields: Schema.optionalKey(Schema.Array(ImportCustomField)),
  staff: Schema.optionalKey(Schema.Array(ImportStaffMember)),
  clients: Schema.optionalKey(Schema.Array(ImportClient)),
  services: Schema.optionalKey(Schema.Array(ImportService)),
  make_up_reasons: Schema.optionalKey(
    Schema.Array(Text(200)).annotate({ description: "Reasons staff pick when giving a make-up, in this order; unique" })
  ),
  events: Schema.optionalKey(
    Schema.Array(ImportEvent).annotate({ description: "Schedules of group classes and courses; materialized on import" })
  ),
  revenue_categories: Schema.optionalKey(Schema.Array(ImportRevenueCategory)),
  sales_taxes: Schema.optionalKey(Schema.Array(ImportSalesTax)),
  plan_products: Schema.optionalKey(
    Schema.Array(ImportPlanProduct).annotate({ description: "The catalog: memberships, prepaid plans, packs and single-visit passes" })
  ),
  pay_period: Schema.optionalKey(ImportPayPeriod.annotate({ description: "The business's pay periods (default semimonthly)" })),
  pay_rates: Schema.optionalKey(
    Schema.Array(ImportPayRate).annotate({ description: "Staff pay: rates per staff member and service (or default), tiers and commissions" })
  )
})
type BaseDocument = typeof BaseDocument.Type

/** Lowercase, ASCII, hyphenated: "Studio Nord (Berlin)" → "studio-nord-berlin". */
export const slugify = (name: string): string =>
  name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100)
    .replace(/-+$/, "")

/** The slug a location gets: its own, else one from its name, else from its key. */
export const locationSlug = (location: { readonly slug?: string; readonly name: string; readonly key: string }): string =>
  location.slug ?? (slugify(location.name) || slugify(location.key) || "location")

type Problem = { readonly path: ReadonlyArray<PropertyKey>; readonly issue: string }

/**
 * The rules that span records: references resolve, keys, e-mails, slugs and names are unique
 * (the database would refuse duplicates anyway, but only the first, and without a path).
 */
const crossReferences = (doc: BaseDocument): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const firstSeen = <K>(seen: Map<K, string>, key: K, where: string, path: ReadonlyArray<PropertyKey>, what: string) => {
    const previous = seen.get(key)
    if (previous !== undefined) problems.push({ path, issue: `${what} is already used by ${previous}` })
    else seen.set(key, where)
  }

  if (doc.business.franchise_parent_subdomain === doc.business.subdomain) {
    problems.push({ path: ["business", "franchise_parent_subdomain"], issue: "a business cannot be its own franchise parent" })
  }

  const locations = doc.locations ?? []
  const locationKeys = new Map<string, string>()
  const slugs = new Map<string, string>()
  locations.forEach((location, i) => {
    firstSeen(locationKeys, location.key, `locations[${i}]`, ["locations", i, "key"], `key "${location.key}"`)
    const slug = locationSlug(location)
    firstSeen(
      slugs,
      slug,
      `locations[${i}]`,
      ["locations", i, location.slug === undefined ? "name" : "slug"],
      location.slug === undefined ? `the slug "${slug}" derived from the name (set "slug")` : `slug "${slug}"`
    )
  })

  const fieldNames = new Map<string, string>()
  ;(doc.custom_fields ?? []).forEach((field, i) => {
    const at = (...rest: Array<PropertyKey>) => ["custom_fields", i, ...rest]
    firstSeen(fieldNames, field.name.trim().toLowerCase(), `custom_fields[${i}]`, at("name"), `name "${field.name}"`)
    if (field.data_type === "select") {
      if (!field.options || field.options.length === 0) problems.push({ path: at("options"), issue: "a select field needs at least one option" })
    } else {
      if (field.options !== undefined && field.options.length > 0) {
        problems.push({ path: at("options"), issue: `only select fields have options (this one is ${field.data_type})` })
      }
      if (field.multi_select) problems.push({ path: at("multi_select"), issue: "only select fields can be multi-select" })
    }
    const values = new Map<string, string>()
    ;(field.options ?? []).forEach((value, j) =>
      firstSeen(values, value, `custom_fields[${i}].options[${j}]`, at("options", j), `option "${value}"`)
    )
  })

  const emails = new Map<string, string>()
  let primaryOwner: string | undefined
  ;(doc.staff ?? []).forEach((member, i) => {
    firstSeen(emails, member.email.toLowerCase(), `staff[${i}]`, ["staff", i, "email"], `e-mail ${member.email}`)
    if (member.role === "primary_owner") {
      if (primaryOwner !== undefined) {
        problems.push({ path: ["staff", i, "role"], issue: `a business has at most one primary_owner (already ${primaryOwner})` })
      } else primaryOwner = `staff[${i}]`
    }
  })

  const clientKeys = new Map<string, string>()
  const checkPerson = (
    person: { readonly key?: string; readonly email?: string; readonly location?: string; readonly password?: string },
    path: ReadonlyArray<PropertyKey>,
    where: string
  ) => {
    if (person.key !== undefined) firstSeen(clientKeys, person.key, where, [...path, "key"], `key "${person.key}"`)
    if (person.email !== undefined) firstSeen(emails, person.email.toLowerCase(), where, [...path, "email"], `e-mail ${person.email}`)
    if (person.location !== undefined && !locationKeys.has(person.location)) {
      problems.push({ path: [...path, "location"], issue: `no location with key "${person.location}" in this document` })
    }
    if (person.password !== undefined && person.email === undefined) {
      problems.push({ path: [...path, "password"], issue: "a password needs an e-mail address (it belongs to the account)" })
    }
  }
  ;(doc.clients ?? []).forEach((client, i) => {
    checkPerson(client, ["clients", i], `clients[${i}]`)
    ;(client.dependents ?? []).forEach((dependent, j) =>
      checkPerson(dependent, ["clients", i, "dependents", j], `clients[${i}].dependents[${j}]`)
    )
  })
  const reasons = new Map<string, string>()
  ;(doc.make_up_reasons ?? []).forEach((reason, i) =>
    firstSeen(reasons, reason.trim().toLowerCase(), `make_up_reasons[${i}]`, ["make_up_reasons", i], `reason "${reason}"`)
  )
  problems.push(...scheduleProblems(doc))
  problems.push(...catalogProblems(doc))
  problems.push(...payRateProblems(doc))
  return problems
}

export const ImportDocument = BaseDocument.check(Schema.makeFilter(crossReferences)).annotate({
  identifier: "ImportDocument",
  description:
    "A whole business as one JSON document, imported all-or-nothing by `npm run studio -- import FILE.json`. " +
    "Unknown keys are rejected. Services, staff working hours and events make the schedule; events are materialized on import. " +
    "Revenue categories, sales taxes and plan products make the catalog."
})
export type ImportDocument = typeof ImportDocument.Type
/** What a document looks like before decoding: the shape to write one in TypeScript. */
export type ImportDocumentInput = typeof ImportDocument.Encoded
export type ImportClient = typeof ImportClient.Type
export type ImportDependent = typeof ImportDependent.Type
export type ImportWaiver = typeof ImportWaiver.Type

/** What an import created. */
export const ImportSummary = Schema.Struct({
  business_id: Schema.Int,
  subdomain: Schema.String,
  counts: Schema.Struct({
    locations: Schema.Int,
    custom_fields: Schema.Int,
    custom_field_options: Schema.Int,
    staff: Schema.Int,
    clients: Schema.Int,
    dependents: Schema.Int,
    accounts_created: Schema.Int,
    accounts_linked: Schema.Int.annotate({ description: "People linked to an account that existed before the import" }),
    services: Schema.Int,
    events: Schema.Int,
    event_occurrences: Schema.Int.annotate({ description: "Occurrences materialized for the events' rolling window" }),
    waivers: Schema.Int,
    forms_of_payment: Schema.Int,
    make_up_reasons: Schema.Int,
    revenue_categories: Schema.Int,
    sales_taxes: Schema.Int,
    plan_products: Schema.Int,
    pay_rates: Schema.Int
  })
}).annotate({ identifier: "ImportSummary" })
export type ImportSummary = typeof ImportSummary.Type
