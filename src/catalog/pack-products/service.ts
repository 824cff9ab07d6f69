import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { requireManagerOrHigher } from "../../access/policies.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { TERMS_ACCEPTANCE_TYPES, VISIBILITIES, type PlanProductRecord } from "../plan-products/model.ts"
import { PlanProductsRepo } from "../plan-products/repo.ts"
import { type Message, Unprocessable, fail } from "../../shared/errors.ts"
import { formatMoney } from "../../shared/money.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { MAX_DESCRIPTION, MAX_DESCRIPTION_LONG, MAX_INT, MAX_NAME, MAX_TERMS, PACK_COMMITMENT_UNITS, type PackProductFields, type PackProductInput, type PackProductListQuery, type PackProductWire } from "./model.ts"
import { PackProductsRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { PackProductRefusals } from "./refusals.ts"

/** The longest commitment in each unit: a hundred years. */
const MAX_COMMITMENT = { day: 36_500, week: 5_200, month: 1_200 } as const

/**
 * Pack products (spec: Packs and pack products; staff mode, owners and managers only). Every
 * rule failure is a 422 naming the field, checked in full before anything is written; writes
 * run in one transaction. An update is partial: absent fields keep their value, and the
 * merged product is checked by the same rules as a new one.
 */
type Locale = Parameters<typeof formatMoney>[2]

/** Where and under which terms a pack product sells: its wire and its fields alike. */
const sellingOf = (row: PlanProductRecord["row"]) => ({
  location_id: row.location_id,
  consider_member: row.consider_member,
  terms: row.terms,
  terms_acceptance_required: row.terms_acceptance_required,
  terms_acceptance_type: row.terms_acceptance_type,
  terms_acceptance_at_checkout: row.terms_acceptance_at_checkout,
  send_expiration_notifications: row.send_expiration_notifications
})

const toWire = (record: PlanProductRecord, currency: string, locale: Locale): PackProductWire => {
  const row = record.row
  const created_at = formatTimestamp(row.created_at)
  const updated_at = formatTimestamp(row.updated_at)
  return {
    id: row.id,
    count: row.count ?? 0,
    commitment_length: row.commitment_length ?? 0,
    commitment_unit: row.commitment_unit ?? "month",
    ...sellingOf(row),
    created_at,
    updated_at,
    product: {
      id: row.id,
      name: row.name,
      description: row.description,
      description_long: row.description_long,
      price_cents: row.price_cents,
      price: formatMoney(row.price_cents, currency, locale),
      visibility: row.visibility,
      suspended: row.suspended,
      created_at,
      updated_at
    },
    services: record.services
  }
}

const packsOnly = { scope: { _tag: "Staff" }, kinds: ["pack"] } as const

const findRecord = Effect.fn("PackProducts.find")(function* (id: number) {
  const business = yield* CurrentBusiness
  const record = yield* (yield* PlanProductsRepo).find({ businessId: business.id, ...packsOnly, id })
  if (!record) return yield* PackProductRefusals.packProductNotFound.fail({ id })
  return record
})

const answer = (records: ReadonlyArray<PlanProductRecord>) =>
  Effect.gen(function* () {
    const business = yield* CurrentBusiness
    const { locale } = yield* RequestContext
    return records.map((record) => toWire(record, business.currency_code, locale))
  })

export const listPackProducts = Effect.fn("PackProducts.list")(function* (query: PackProductListQuery) {
  yield* requireManagerOrHigher
  const business = yield* CurrentBusiness
  const page = pageOf(query)
  const { records, total } = yield* (yield* PlanProductsRepo).list({ businessId: business.id, ...packsOnly, page })
  return { pack_products: yield* answer(records), ...(yield* pageLinks(page, total)) }
})

export const getPackProduct = Effect.fn("PackProducts.get")(function* (id: number) {
  yield* requireManagerOrHigher
  return { pack_products: yield* answer([yield* findRecord(id)]) }
})

/** Visibility is matched in any letter case (clients send `staff`); the stored value is the spec's spelling. */
const oneOf = <const L extends ReadonlyArray<string>>(values: L, given: string) =>
  values.find((value) => value.toLowerCase() === given.trim().toLowerCase()) as L[number] | undefined

/** Where a value comes from: `product` wins over the same attribute at the top level of `pack_product`. */
const productValue = <K extends "name" | "price_cents" | "visibility" | "description" | "description_long" | "suspended">(
  input: PackProductInput,
  key: K
): PackProductInput[K] => (input.product !== undefined && input.product[key] !== undefined ? input.product[key] : input[key])

const blank = (text: string | null | undefined) => text === undefined || text === null || text.trim() === ""

/**
 * The product `input` makes of `current` (undefined: a new product, with the spec's defaults),
 * or the messages of every rule it breaks.
 */
const merge = (input: PackProductInput, current: PackProductFields | undefined) => {
  const problems: Array<Message> = []
  const required = (field: string) => problems.push(PackProductRefusals.fieldRequired.message({ field }))
  const tooLong = (field: string, max: number) => problems.push(PackProductRefusals.fieldTooLong.message({ field, max }))
  const pick = <A>(given: A | undefined, fallback: A | undefined) => (given !== undefined ? given : fallback)

  const nameIn = pick(productValue(input, "name"), current?.name)
  if (blank(nameIn)) required("name")
  else if (nameIn!.trim().length > MAX_NAME) tooLong("name", MAX_NAME)

  const intField = (field: string, given: number | null | undefined, fallback: number | undefined, min: number) => {
    const value = pick(given, fallback)
    if (value === undefined || value === null) required(field)
    else if (value < min) problems.push(PackProductRefusals.fieldMustBeAtLeast.message({ field, min }))
    else if (value > MAX_INT) problems.push(PackProductRefusals.fieldMustBeAtMost.message({ field, max: MAX_INT }))
    return value ?? 0
  }
  const price_cents = intField("price_cents", productValue(input, "price_cents"), current?.price_cents, 0)
  const count = intField("count", input.count, current?.count, 1)
  const commitment_length = intField("commitment_length", input.commitment_length, current?.commitment_length, 1)

  const literal = <const L extends ReadonlyArray<string>>(field: string, values: L, given: string | null | undefined, fallback: L[number] | undefined) => {
    if (given === undefined) {
      if (fallback === undefined) required(field)
      return fallback
    }
    if (blank(given)) return void required(field)
    const found = oneOf(values, given!)
    if (found === undefined) problems.push(PackProductRefusals.fieldMustBeOneOf.message({ field, values: values.join(", ") }))
    return found
  }
  const visibility = literal("visibility", VISIBILITIES, productValue(input, "visibility"), current?.visibility)
  const commitment_unit = literal("commitment_unit", PACK_COMMITMENT_UNITS, input.commitment_unit, current?.commitment_unit)
  // At most a hundred years, so a pack sold today has an end date (one of 2^31 months has none).
  const longest = commitment_unit === undefined ? undefined : MAX_COMMITMENT[commitment_unit]
  if (longest !== undefined && commitment_length > longest && commitment_length <= MAX_INT) {
    problems.push(PackProductRefusals.fieldMustBeAtMost.message({ field: "commitment_length", max: longest }))
  }
  const terms_acceptance_type = literal(
    "terms_acceptance_type",
    TERMS_ACCEPTANCE_TYPES,
    input.terms_acceptance_type,
    current?.terms_acceptance_type ?? "checkbox"
  )

  const text = (field: string, given: string | null | undefined, fallback: string | null | undefined, max: number) => {
    const value = given !== undefined ? given : (fallback ?? null)
    if (value !== null && value.length > max) tooLong(field, max)
    return value === null || value.trim() === "" ? null : value
  }
  const description = text("description", productValue(input, "description"), current?.description, MAX_DESCRIPTION)
  const description_long = text("description_long", productValue(input, "description_long"), current?.description_long, MAX_DESCRIPTION_LONG)
  const terms = text("terms", input.terms, current?.terms, MAX_TERMS)
  const location_id = input.location_id !== undefined ? input.location_id : (current?.location_id ?? null)
  if (location_id !== null && location_id < 1) {
    problems.push(PackProductRefusals.fieldIdNotFound.message({ field: "location_id", id: location_id }))
  }

  const flag = (given: boolean | undefined, fallback: boolean | undefined, byDefault: boolean) => given ?? fallback ?? byDefault
  const fields: PackProductFields | undefined =
    problems.length > 0
      ? undefined
      : {
        name: nameIn!.trim(),
        price_cents,
        visibility: visibility!,
        description,
        description_long,
        suspended: flag(productValue(input, "suspended"), current?.suspended, false),
        count,
        commitment_length,
        commitment_unit: commitment_unit!,
        location_id,
        consider_member: flag(input.consider_member, current?.consider_member, false),
        terms,
        terms_acceptance_required: flag(input.terms_acceptance_required, current?.terms_acceptance_required, false),
        terms_acceptance_type: terms_acceptance_type!,
        terms_acceptance_at_checkout: flag(input.terms_acceptance_at_checkout, current?.terms_acceptance_at_checkout, false),
        send_expiration_notifications: flag(input.send_expiration_notifications, current?.send_expiration_notifications, true)
      }
  return { fields, problems }
}

/** `[]` removes all, null or absent leaves them unchanged; a form's empty value is no id. */
const serviceIdsOf = (input: PackProductInput) =>
  input.service_ids === undefined || input.service_ids === null
    ? undefined
    : input.service_ids.filter((id): id is number => typeof id === "number")

const fieldsOf = (record: PlanProductRecord): PackProductFields => {
  const row = record.row
  return {
    name: row.name,
    price_cents: row.price_cents,
    visibility: row.visibility,
    description: row.description,
    description_long: row.description_long,
    suspended: row.suspended,
    count: row.count ?? 1,
    commitment_length: row.commitment_length ?? 1,
    commitment_unit: (PACK_COMMITMENT_UNITS as ReadonlyArray<string>).includes(row.commitment_unit ?? "")
      ? (row.commitment_unit as PackProductFields["commitment_unit"])
      : "month",
    ...sellingOf(row)
  }
}

/** The rules and the one that needs the database: the location must be the business's. */
const checked = Effect.fn("PackProducts.check")(function* (input: PackProductInput, current: PackProductFields | undefined) {
  const business = yield* CurrentBusiness
  const { fields, problems } = merge(input, current)
  const locationId = input.location_id
  if (locationId !== undefined && locationId !== null && locationId >= 1 && locationId !== current?.location_id) {
    if ((yield* (yield* PackProductsRepo).location({ businessId: business.id, id: locationId })) === undefined) {
      problems.push(PackProductRefusals.fieldIdNotFound.message({ field: "location_id", id: locationId }))
    }
  }
  if (problems.length > 0 || !fields) return yield* fail(Unprocessable, ...problems)
  return fields
})

export const createPackProduct = Effect.fn("PackProducts.create")(function* (input: PackProductInput) {
  yield* requireManagerOrHigher
  const business = yield* CurrentBusiness
  const repo = yield* PackProductsRepo
  const sql = yield* SqlClient.SqlClient
  const now = (yield* currentTime)
  const fields = yield* checked(input, undefined)
  const serviceIds = serviceIdsOf(input)
  const id = yield* sql.withTransaction(
    Effect.gen(function* () {
      const { id } = yield* repo.insert({ businessId: business.id, fields, now })
      if (serviceIds !== undefined) yield* repo.replaceServices({ businessId: business.id, id, serviceIds })
      return id
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
  return { pack_products: yield* answer([yield* findRecord(id)]) }
})

export const updatePackProduct = Effect.fn("PackProducts.update")(function* (id: number, input: PackProductInput) {
  yield* requireManagerOrHigher
  const business = yield* CurrentBusiness
  const repo = yield* PackProductsRepo
  const sql = yield* SqlClient.SqlClient
  const now = (yield* currentTime)
  const current = fieldsOf(yield* findRecord(id))
  const fields = yield* checked(input, current)
  const serviceIds = serviceIdsOf(input)
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* repo.update({ businessId: business.id, id, fields, now })
      if (serviceIds !== undefined) yield* repo.replaceServices({ businessId: business.id, id, serviceIds })
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
  return { pack_products: yield* answer([yield* findRecord(id)]) }
})

export const deletePackProduct = Effect.fn("PackProducts.delete")(function* (id: number) {
  yield* requireManagerOrHigher
  const business = yield* CurrentBusiness
  const now = (yield* currentTime)
  yield* findRecord(id)
  // The write decides: of two deletes at once, the second changes nothing and answers 404, as it would after.
  if ((yield* (yield* PackProductsRepo).softDelete({ businessId: business.id, id, now })) === undefined) {
    return yield* PackProductRefusals.packProductNotFound.fail({ id })
  }
})
