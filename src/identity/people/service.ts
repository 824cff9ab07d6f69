import { Clock, Effect, Option } from "effect"
import { AUTH_MESSAGES, CurrentClient, CurrentStaff } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { Unauthorized } from "../../shared/errors.ts"
import { formatMoney } from "../../shared/money.ts"
import { AccountBalances } from "./balances.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { type BusinessRow, RequestContext } from "../../shared/request-context.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import { type CustomFieldValueRow, PERSON_SORT_KEYS, type PersonCustomField, type PersonDesk, type PersonFront, type PersonListQuery, type PersonRef, type PersonRow, type PersonSearchQuery, type PersonSort, type PersonSortKey, type RelationshipRow, SEARCH_FIELDS, type SearchField } from "./model.ts"
import { PeopleRepo } from "./repo.ts"
import { currentTime } from "../../shared/clock.ts"
import { PeopleRefusals } from "./refusals.ts"

/** Spec, Limits: the staff-mode person list has 25 people per page. */
export const PEOPLE_PER_PAGE = 25
export const SEARCH_PER_PAGE = 25

// ---------------------------------------------------------------------------------------------
// Wire shapes

export const fullName = (row: { readonly first_name: string; readonly last_name: string }) =>
  `${row.first_name} ${row.last_name}`.trim()

/** Photos are stored once; the sizes are the same image with a `size` hint, like logos. */
const sized = (url: string, size: string) => `${url}${url.includes("?") ? "&" : "?"}size=${size}`
const profilePhoto = (url: string | null): PersonFront["profile_photo"] =>
  url === null
    ? null
    : { x50: sized(url, "50x50"), x50_2x: sized(url, "100x100"), x75: sized(url, "75x75"), x75_2x: sized(url, "150x150"), full: url }

const customFieldWire = (row: CustomFieldValueRow): PersonCustomField => ({
  id: row.custom_field_id,
  name: row.name,
  data_type: row.data_type,
  value:
    row.data_type === "text"
      ? row.text_value
      : row.data_type === "boolean"
        ? row.boolean_value === null ? null : String(row.boolean_value)
        : row.options.length === 0 ? null : row.options.map((option) => option.value).join(", "),
  custom_field_option_ids: row.data_type === "select" ? row.options.map((option) => option.id) : []
})

const groupBy = <A>(rows: ReadonlyArray<A>, key: (row: A) => number) => {
  const groups = new Map<number, Array<A>>()
  for (const row of rows) {
    const group = groups.get(key(row))
    if (group) group.push(row)
    else groups.set(key(row), [row])
  }
  return groups
}

/**
 * The current membership of a person: the name of their newest current consider_member plan not
 * on hold (the plan rules' member, src/shared/plan-rules.ts), today in the business's zone. Without one,
 * `membership` is null and `secondary_info_field` says so the way the public API does.
 */
const NO_MEMBERSHIP = "No Membership"

/** Membership names by person id (members only), read at Clock's now. */
const membershipsOf = Effect.fn("People.memberships")(function* (businessId: number, ids: ReadonlyArray<number>) {
  return yield* (yield* PeopleRepo).memberships({ businessId, ids, now: yield* currentTime })
})

const toFront = (row: PersonRow, values: ReadonlyArray<CustomFieldValueRow>, membership: string | null): PersonFront => {
  const customFields = values.map(customFieldWire)
  return {
    id: row.id,
    name: fullName(row),
    first_name: row.first_name,
    middle_name: row.middle_name,
    last_name: row.last_name,
    email: row.email,
    birthdate: row.birthdate,
    profile_photo: profilePhoto(row.profile_photo_url),
    custom_fields: customFields,
    person_custom_fields: customFields.map(({ id, name, value }) => ({ id, custom_field_id: id, name, value })),
    secondary_info_field: membership ?? NO_MEMBERSHIP
  }
}

const toDesk = (
  row: PersonRow,
  values: ReadonlyArray<CustomFieldValueRow>,
  membership: string | null,
  business: BusinessRow,
  extras: {
    readonly relationships?: ReadonlyArray<RelationshipRow> | undefined
    readonly balance?: { readonly cents: number; readonly formatted: string } | undefined
  }
): PersonDesk => ({
  ...toFront(row, values, membership),
  pronoun: row.pronoun,
  phone: row.phone,
  address: row.address,
  guardian_name: row.guardian_name,
  guardian_email: row.guardian_email,
  is_member: membership !== null,
  membership,
  joined_at: formatTimestamp(row.joined_at),
  timezone: row.time_zone ?? business.time_zone,
  hidden_at: row.hidden_at === null ? null : formatTimestamp(row.hidden_at),
  deleted_at: row.deleted_at === null ? null : formatTimestamp(row.deleted_at),
  business_id: row.business_id,
  location_id: row.location_id,
  location:
    row.location_id === null || row.location_name === null || row.location_slug === null
      ? null
      : { id: row.location_id, name: row.location_name, slug: row.location_slug },
  created_at: formatTimestamp(row.created_at),
  updated_at: formatTimestamp(row.updated_at),
  ...(extras.relationships === undefined
    ? {}
    : {
      dependents: extras.relationships
        .filter((r) => r.provider_id === row.id)
        .map((r): PersonRef => ({ id: r.dependent_id, name: r.dependent_name })),
      providers: extras.relationships
        .filter((r) => r.dependent_id === row.id)
        .map((r): PersonRef => ({ id: r.provider_id, name: r.provider_name }))
    }),
  ...(extras.balance === undefined ? {} : { account_balance_cents: extras.balance.cents, account_balance: extras.balance.formatted })
})

/**
 * People as staff see them, in the order of `rows`: custom field values (hidden ones too),
 * and on request relationships and account credit balances (the AccountBalances port).
 */
export const deskPeople = Effect.fn("People.deskPeople")(function* (
  rows: ReadonlyArray<PersonRow>,
  options: { readonly relationships: boolean; readonly balances: boolean }
) {
  const business = yield* CurrentBusiness
  const { locale } = yield* RequestContext
  const repo = yield* PeopleRepo
  const ids = rows.map((row) => row.id)
  const values = groupBy(yield* repo.customFieldValues({ businessId: business.id, ids, includeHidden: true }), (v) => v.person_id)
  const relationships = options.relationships ? yield* repo.relationships({ businessId: business.id, ids }) : undefined
  const balances = options.balances ? yield* (yield* AccountBalances).balances(business.id, ids) : undefined
  const balanceOf = (id: number) => {
    if (balances === undefined) return undefined
    const cents = balances.get(id) ?? 0
    return { cents, formatted: formatMoney(cents, business.currency_code, locale) }
  }
  const memberships = yield* membershipsOf(business.id, ids)
  return rows.map((row) => toDesk(row, values.get(row.id) ?? [], memberships.get(row.id) ?? null, business, { relationships, balance: balanceOf(row.id) }))
})

/** People as clients see them (no hidden custom fields), for any business: the account's own records. */
export const frontPeopleOf = Effect.fn("People.frontPeopleOf")(function* (businessId: number, ids: ReadonlyArray<number>) {
  const repo = yield* PeopleRepo
  const rows = yield* repo.find({ businessId, ids, includeDeleted: false })
  const values = groupBy(yield* repo.customFieldValues({ businessId, ids, includeHidden: false }), (v) => v.person_id)
  const memberships = yield* membershipsOf(businessId, rows.map((row) => row.id))
  return rows.map((row) => toFront(row, values.get(row.id) ?? [], memberships.get(row.id) ?? null))
})

// ---------------------------------------------------------------------------------------------
// Client mode

/**
 * A person the token's person may read: themself or one of their dependents (spec,
 * Authentication rule 2). Anyone else, another business's ids included, is not found.
 * A call with only a `client_id` has no person to act for: 401.
 */
export const getFrontPeople = Effect.fn("People.frontGet")(function* (target: number | "me", withDependents: boolean) {
  const business = yield* CurrentBusiness
  const client = yield* CurrentClient
  if (Option.isNone(client.grant)) return yield* Effect.fail(new Unauthorized({ error: AUTH_MESSAGES.tokenRequired }))
  const repo = yield* PeopleRepo
  const self = client.grant.value.personId
  if (Option.isNone(self)) {
    return yield* target === "me"
      ? PeopleRefusals.personMeNotFound.fail()
      : PeopleRefusals.personNotFound.fail({ id: target })
  }
  const selfId = self.value
  const dependentIds = (yield* repo.relationships({ businessId: business.id, ids: [selfId] }))
    .filter((r) => r.provider_id === selfId)
    .map((r) => r.dependent_id)
  const targetId = target === "me" ? selfId : target
  if (targetId !== selfId && !dependentIds.includes(targetId)) {
    return yield* PeopleRefusals.personNotFound.fail({ id: targetId })
  }
  const ids = [targetId, ...(withDependents && targetId === selfId ? dependentIds : [])]
  const rows = yield* repo.find({ businessId: business.id, ids, includeDeleted: false })
  const person = rows.find((row) => row.id === targetId)
  if (!person) {
    return yield* target === "me"
      ? PeopleRefusals.personMeNotFound.fail()
      : PeopleRefusals.personNotFound.fail({ id: targetId })
  }
  const values = groupBy(yield* repo.customFieldValues({ businessId: business.id, ids, includeHidden: false }), (v) => v.person_id)
  const ordered = [person, ...rows.filter((row) => row.id !== targetId)]
  const memberships = yield* membershipsOf(business.id, ids)
  return { people: ordered.map((row) => toFront(row, values.get(row.id) ?? [], memberships.get(row.id) ?? null)) }
})

// ---------------------------------------------------------------------------------------------
// Staff mode

/** One person, deleted ones too (staff may look up who was removed), with relationships. */
export const getDeskPerson = Effect.fn("People.deskGet")(function* (target: number | "me") {
  const business = yield* CurrentBusiness
  const id = target === "me" ? (yield* CurrentStaff).personId : target
  const rows = yield* (yield* PeopleRepo).find({ businessId: business.id, ids: [id], includeDeleted: true })
  if (rows.length === 0) return yield* PeopleRefusals.personNotFound.fail({ id })
  return { people: yield* deskPeople(rows, { relationships: true, balances: false }) }
})

/** `sort`: comma-separated attributes, each ascending unless prefixed by a minus (spec). */
const parseSort = (value: string | undefined): ReadonlyArray<PersonSort> | undefined => {
  if (value === undefined || value.trim() === "") return [{ key: PERSON_SORT_KEYS[0], descending: false }]
  const sorts: Array<PersonSort> = []
  for (const part of value.split(",").map((p) => p.trim())) {
    const descending = part.startsWith("-")
    const key = descending ? part.slice(1) : part
    if (!(PERSON_SORT_KEYS as ReadonlyArray<string>).includes(key)) return undefined
    if (!sorts.some((s) => s.key === key)) sorts.push({ key: key as PersonSortKey, descending })
  }
  return sorts
}

export const listDeskPeople = Effect.fn("People.deskList")(function* (query: PersonListQuery) {
  const business = yield* CurrentBusiness
  const sorts = parseSort(query.sort)
  if (sorts === undefined) {
    return yield* PeopleRefusals.fieldMustBeOneOf.fail({ field: "sort", values: PERSON_SORT_KEYS.flatMap((key) => [key, `-${key}`]).join(", ") })
  }
  const page = pageOf(query, PEOPLE_PER_PAGE)
  const { rows, total } = yield* (yield* PeopleRepo).list({
    businessId: business.id,
    page,
    sorts,
    createdSince: query.created_since,
    updatedSince: query.updated_since,
    isMember: query.is_member,
    today: localDateAt(yield* Clock.currentTimeMillis, business.time_zone)
  })
  const people = yield* deskPeople(rows, {
    relationships: query.include_relationships === true,
    balances: query.include_balances === true
  })
  return { people, ...(yield* pageLinks(page, total)) }
})

/**
 * Search (spec, GET /desk/people/search): `fields` limits the fields searched (default all);
 * without it, an e-mail address also searches names by the part before the at sign. Phone
 * numbers match complete numbers by their digits. Barcodes match a whole code, case-insensitively.
 */
export const searchDeskPeople = Effect.fn("People.search")(function* (query: PersonSearchQuery) {
  const business = yield* CurrentBusiness
  const names = (query.fields ?? "").split(",").map((f) => f.trim().toLowerCase()).filter((f) => f !== "")
  if (names.some((name) => !(SEARCH_FIELDS as ReadonlyArray<string>).includes(name))) {
    return yield* PeopleRefusals.fieldMustBeOneOf.fail({ field: "fields", values: SEARCH_FIELDS.join(", ") })
  }
  const explicit = names.length > 0
  const fields: ReadonlyArray<SearchField> = explicit ? (names as ReadonlyArray<SearchField>) : SEARCH_FIELDS
  const q = query.q.trim().toLowerCase()
  const at = q.indexOf("@")
  const nameText = !explicit && at > 0 ? q.slice(0, at) : q
  const digits = q.replace(/\D/g, "")
  const terms = {
    name: fields.includes("name") && nameText.trim() !== "" ? Option.some(nameText.trim()) : Option.none(),
    email: fields.includes("email") ? Option.some(q) : Option.none(),
    phoneDigits: fields.includes("phone") && digits.length > 0 ? Option.some(digits) : Option.none(),
    barcode: fields.includes("barcodes") ? Option.some(q) : Option.none()
  }
  const page = pageOf(query, SEARCH_PER_PAGE)
  const { rows, total } = yield* (yield* PeopleRepo).search({ businessId: business.id, terms, page })
  const people = yield* deskPeople(rows, { relationships: false, balances: false })
  return {
    results: rows.map((row, i) => ({ score: row.score, person: people[i]! })),
    ...(yield* pageLinks(page, total))
  }
})
