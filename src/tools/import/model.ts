import { Schema } from "effect"
import { Text } from "./fields.ts"
import { ImportEvent, ImportService, scheduleProblems } from "./schedule.ts"
import { ImportPlanProduct, ImportRevenueCategory, ImportSalesTax, catalogProblems } from "./catalog.ts"
import { ImportPayPeriod, ImportPayRate, payRateProblems } from "./pay-rates.ts"

import { ImportBusiness, ImportClient, ImportCustomField, ImportLocation, ImportStaffMember } from "./records.ts"

/**
 * The import format: one JSON document describing a whole business (settings, locations,
 * custom fields, staff, clients and their dependents). One Schema validates it and documents
 * it; the cross-references inside the document are checked by the document's own filter, so
 * every problem is reported with its path in one pass. Records refer to each other by `key`
 * (a location key), never by database id: the document can be written before the business
 * exists.
 */

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

/** Collects problems; `firstSeen` reports a value used before (a key, an e-mail, a slug, a name), naming where. */
const checker = () => {
  const problems: Array<Problem> = []
  const firstSeen = <K>(seen: Map<K, string>, key: K, where: string, path: ReadonlyArray<PropertyKey>, what: string) => {
    const previous = seen.get(key)
    if (previous !== undefined) problems.push({ path, issue: `${what} is already used by ${previous}` })
    else seen.set(key, where)
  }
  return { problems, firstSeen }
}
type Checker = ReturnType<typeof checker>

/** Location keys and slugs are unique; returns the keys, which people refer to. */
const checkLocations = ({ firstSeen }: Checker, doc: BaseDocument): ReadonlyMap<string, string> => {
  const locationKeys = new Map<string, string>()
  const slugs = new Map<string, string>()
  ;(doc.locations ?? []).forEach((location, i) => {
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
  return locationKeys
}

/** Names unique; options only on select fields (at least one there), each option once. */
const checkCustomFields = ({ problems, firstSeen }: Checker, doc: BaseDocument) => {
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
}

/** E-mails unique across staff and clients, one primary owner, client keys unique, locations known, passwords with e-mails. */
const checkPeople = ({ problems, firstSeen }: Checker, doc: BaseDocument, locationKeys: ReadonlyMap<string, string>) => {
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
}

/**
 * The rules that span records: references resolve, keys, e-mails, slugs and names are unique
 * (the database would refuse duplicates anyway, but only the first, and without a path).
 * Problems come in document order: business, locations, custom fields, people, reasons, then
 * the schedule's, the catalog's and the pay rates'.
 */
const crossReferences = (doc: BaseDocument): ReadonlyArray<Problem> => {
  const check = checker()
  if (doc.business.franchise_parent_subdomain === doc.business.subdomain) {
    check.problems.push({ path: ["business", "franchise_parent_subdomain"], issue: "a business cannot be its own franchise parent" })
  }
  const locationKeys = checkLocations(check, doc)
  checkCustomFields(check, doc)
  checkPeople(check, doc, locationKeys)
  const reasons = new Map<string, string>()
  ;(doc.make_up_reasons ?? []).forEach((reason, i) =>
    check.firstSeen(reasons, reason.trim().toLowerCase(), `make_up_reasons[${i}]`, ["make_up_reasons", i], `reason "${reason}"`)
  )
  check.problems.push(...scheduleProblems(doc), ...catalogProblems(doc), ...payRateProblems(doc))
  return check.problems
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
