import { Effect, Option, Schema, SchemaIssue } from "effect"
import { SqlClient } from "effect/sql"
import { hashPassword } from "../../access/passwords.ts"
import { ImportError } from "./errors.ts"
import { type ImportDocument, ImportDocument as ImportDocumentSchema, type ImportSummary, locationSlug } from "./model.ts"
import { ImportRepo } from "./repo.ts"
import { writeSchedule } from "./schedule.ts"
import { writeCatalog } from "./catalog.ts"
import { everyPerson, writePeople } from "./people.ts"
import { writePayRates } from "./pay-rates.ts"

/**
 * Imports a whole business from one document, all or nothing: the document is checked in
 * full first (every problem reported with its path), passwords are hashed before the
 * transaction opens (scrypt is slow and must not hold a connection and locks), then one
 * transaction writes the business, its locations, custom fields, accounts, people, staff,
 * dependents, schedule (services, working hours, events and their occurrences) and catalog. Any
 * failure rolls everything back.
 */

const formatPath = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> = []): string =>
  path
    .map((segment) => (typeof segment === "object" ? segment.key : segment))
    .map((key, i) => (typeof key === "number" ? `[${key}]` : `${i > 0 ? "." : ""}${String(key)}`))
    .join("") || "(document)"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => {
    if (issue._tag === "UnexpectedKey") return "unknown key"
    if (issue._tag === "MissingKey") return "is required"
    if (issue._tag === "InvalidType" && issue.ast._tag === "Objects") return "must be a JSON object"
    if (issue._tag === "InvalidType" && issue.ast._tag === "Arrays") return "must be a JSON array"
    return SchemaIssue.defaultLeafHook(issue)
  }
})

/** One line per problem: `clients[3].email: must be an e-mail address`. */
export const issueLines = (issue: SchemaIssue.Issue): ReadonlyArray<string> => [
  ...new Set(formatter(issue).issues.map((found) => `${formatPath(found.path)}: ${found.message}`))
]

/** Strict: unknown keys are errors, so a misspelt optional field is not silently dropped. */
export const decodeImportDocument = (input: unknown): Effect.Effect<ImportDocument, ImportError> =>
  Schema.decodeUnknownEffect(ImportDocumentSchema)(input, { errors: "all", onExcessProperty: "error" }).pipe(
    Effect.mapError((error) => new ImportError({ reason: "invalid_document", messages: issueLines(error.issue) }))
  )


/**
 * Hashes by lower-cased e-mail, each with a salt of its own (even the demo's 55 accounts with
 * one published password: a shared hash would tell an attacker who holds the same password);
 * scrypt runs on libuv's thread pool (4 threads by default).
 */
const hashPasswords = (doc: ImportDocument) => {
  const wanted = everyPerson(doc).flatMap((person) =>
    person.email !== undefined && person.password !== undefined ? [{ email: person.email, password: person.password }] : []
  )
  return Effect.forEach(
    wanted,
    ({ email, password }) => Effect.map(Effect.promise(() => hashPassword(password)), (hash) => [email.toLowerCase(), hash] as const),
    { concurrency: 4 }
  ).pipe(Effect.map((entries) => new Map(entries)), Effect.withSpan("Import.hashPasswords"))
}

const subdomainTaken = (subdomain: string) =>
  new ImportError({ reason: "subdomain_taken", messages: [`business.subdomain: "${subdomain}" is already taken`] })

const parentNotFound = (subdomain: string) =>
  new ImportError({
    reason: "franchise_parent_not_found",
    messages: [`business.franchise_parent_subdomain: no business with subdomain "${subdomain}"`]
  })

/** The checks that need the database, made before the slow hashing and again in the transaction. */
const checkAgainstDatabase = Effect.fn("Import.checkAgainstDatabase")(function* (doc: ImportDocument) {
  const repo = yield* ImportRepo
  if (Option.isSome(yield* repo.findBusinessId({ subdomain: doc.business.subdomain }))) return yield* subdomainTaken(doc.business.subdomain)
  const parent = doc.business.franchise_parent_subdomain
  if (parent === undefined) return Option.none<number>()
  const parentId = yield* repo.findBusinessId({ subdomain: parent })
  if (Option.isNone(parentId)) return yield* parentNotFound(parent)
  return parentId
})

/** The business's custom fields and their options, in the document's order. */
const writeCustomFields = Effect.fn("Import.writeCustomFields")(function* (doc: ImportDocument, businessId: number) {
  const repo = yield* ImportRepo
  const fields = doc.custom_fields ?? []
  const fieldIds = yield* repo.insertCustomFields(
    fields.map((field, position) => ({
      business_id: businessId,
      name: field.name.trim(),
      why: field.why ?? null,
      data_type: field.data_type,
      multi_select: field.multi_select ?? false,
      hidden_in_client_mode: field.hidden_in_client_mode ?? false,
      required: field.required ?? false,
      position
    }))
  )
  const options = fields.flatMap((field) =>
    (field.options ?? []).map((value, position) => ({
      business_id: businessId,
      custom_field_id: fieldIds.get(field.name.trim())!,
      value: value.trim(),
      position
    }))
  )
  yield* repo.insertCustomFieldOptions(options)
  return { fields, options }
})

/** The business itself (a taken subdomain is refused here too: the unique index decides between concurrent imports). */
const writeBusiness = Effect.fn("Import.writeBusiness")(function* (doc: ImportDocument) {
  const business = doc.business
  const parentId = yield* checkAgainstDatabase(doc)
  const colors = Object.fromEntries(
    Object.entries(business.branding?.colors ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined)
  )
  return yield* (yield* ImportRepo).insertBusiness({
    subdomain: business.subdomain,
    name: business.name.trim(),
    time_zone: business.time_zone,
    currency_code: business.currency_code,
    default_locale: business.default_locale,
    franchise_parent_id: Option.getOrNull(parentId),
    website: business.website ?? null,
    email_address: business.email_address ?? null,
    phone: business.phone ?? null,
    brand_colors: colors,
    logo_url: business.branding?.logo_url ?? null,
    cover_photo_url: business.branding?.cover_photo_url ?? null
  }).pipe(Effect.flatMap(Option.match({ onNone: () => Effect.fail(subdomainTaken(business.subdomain)), onSome: Effect.succeed })))
})

/** The locations, in the document's order; their ids by the document's keys. */
const writeLocations = Effect.fn("Import.writeLocations")(function* (doc: ImportDocument, businessId: number) {
  const locations = doc.locations ?? []
  const idsBySlug = yield* (yield* ImportRepo).insertLocations(
    locations.map((location, position) => ({
      business_id: businessId,
      name: location.name.trim(),
      slug: locationSlug(location),
      address: location.address ?? null,
      latitude: location.latitude ?? null,
      longitude: location.longitude ?? null,
      phone: location.phone ?? null,
      description: location.description ?? null,
      time_zone: location.time_zone ?? doc.business.time_zone,
      show_in_client_mode: location.show_in_client_mode ?? true,
      position
    }))
  )
  return new Map(locations.map((location) => [location.key, idsBySlug.get(locationSlug(location))!]))
})

const write = Effect.fn("Import.write")(function* (doc: ImportDocument, hashes: ReadonlyMap<string, string>) {
  const repo = yield* ImportRepo
  const business = doc.business
  const businessId = yield* writeBusiness(doc)
  const locations = doc.locations ?? []
  const locationIds = yield* writeLocations(doc, businessId)
  const { fields, options } = yield* writeCustomFields(doc, businessId)

  const people = yield* writePeople(doc, { businessId, locationIds, hashes })
  const reasons = doc.make_up_reasons ?? []
  yield* repo.insertMakeUpReasons(reasons.map((name, position) => ({ business_id: businessId, name: name.trim(), position })))
  const schedule = yield* writeSchedule(doc, { businessId, locationIds, personIdsByEmail: people.personIdsByEmail })
  const catalog = yield* writeCatalog(doc, { businessId, locationIds, serviceIds: schedule.serviceIds, staffId: schedule.staffId })
  const payRates = yield* writePayRates(doc.pay_rates ?? [], doc.pay_period, { businessId, serviceIds: schedule.serviceIds, staffId: schedule.staffId })

  return {
    business_id: businessId,
    subdomain: business.subdomain,
    counts: {
      locations: locations.length,
      custom_fields: fields.length,
      custom_field_options: options.length,
      ...people.counts.people,
      ...schedule.counts,
      ...people.counts.attached,
      make_up_reasons: reasons.length,
      ...catalog,
      pay_rates: payRates
    }
  } satisfies ImportSummary
})

export const importBusiness = Effect.fn("Import.business")(function* (input: unknown) {
  const doc = yield* decodeImportDocument(input)
  // Fail fast on a taken subdomain or a missing parent before spending seconds on scrypt.
  yield* checkAgainstDatabase(doc)
  const hashes = yield* hashPasswords(doc)
  const sql = yield* SqlClient.SqlClient
  const summary = yield* sql.withTransaction(write(doc, hashes)).pipe(Effect.catchTag("SqlError", Effect.die))
  yield* Effect.logInfo("business imported").pipe(
    Effect.annotateLogs({ business_id: summary.business_id, subdomain: summary.subdomain, ...summary.counts })
  )
  return summary
})
