import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PERSON_STATES, SOURCE_NAMES } from "../../reports/catalog/clients.ts"
import { type Row, clientRow, memoryStore, page } from "./support.ts"

/**
 * Random queries, answered twice: by the compiled DuckDB SQL and by an evaluator written
 * here in plain TypeScript from the spec's rules (filters, grouping, aggregates, ordering,
 * keyset pages), over the same random rows. Every page of every query must agree. The seed
 * is fixed so a failure reproduces; REPORT_PROPERTY_SEED runs another one.
 */

const SEED = Number(process.env.REPORT_PROPERTY_SEED ?? 20240615)
const QUERIES = 100

// ---------------------------------------------------------------------------------------------
// Randomness

const mulberry32 = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const random = mulberry32(SEED)
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))
const pick = <T>(items: ReadonlyArray<T>): T => items[int(0, items.length - 1)]!
const chance = (p: number) => random() < p
const some = <T>(items: ReadonlyArray<T>, min: number, max: number): Array<T> => {
  const copy = [...items]
  const out: Array<T> = []
  const n = int(min, Math.min(max, copy.length))
  while (out.length < n) out.push(copy.splice(int(0, copy.length - 1), 1)[0]!)
  return out
}

// ---------------------------------------------------------------------------------------------
// Rows

type Kind = "string" | "enum" | "integer" | "currency" | "boolean" | "date"

const STRINGS: Record<string, ReadonlyArray<string | null>> = {
  first_name: ["Ann", "ann", "ANNA", "Bob", "bo", "Cy", "", null, "Zed", "al%_x"],
  last_name: ["Archer", "archer", "Baker", "", null, "O'Neil", "zz"],
  email: ["ann@example.test", "BOB@Example.test", "cy@other.test", "", null, "x%y@z.test"],
  home_location_name: ["Downtown", "downtown", "Uptown", "", null]
}
const DATES = ["2019-12-31", "2021-03-03", "2023-01-10", "2024-01-01", "2024-04-20", "2024-06-01", "2024-06-14", "2024-06-15"]
const BIRTHDATES = ["1980-01-01", "1990-06-15", "1990-06-14", "2000-12-31", "2010-06-16", "1975-03-01"]
const ZONES = ["UTC", "America/Los_Angeles", "Pacific/Auckland"]
const BUSINESSES = [1, 2, 3]

const makeRows = (): Array<Row> => {
  const rows: Array<Row> = []
  let personId = 0
  for (const business of BUSINESSES) {
    const zone = ZONES[business - 1]!
    for (let i = 0; i < 30; i++) {
      personId += 1
      const first = pick(STRINGS.first_name!)
      const last = pick(STRINGS.last_name!)
      rows.push(
        clientRow({
          business_id: business,
          person_id: personId,
          business_subdomain: `s${business}`,
          time_zone: zone,
          first_name: first,
          last_name: last,
          full_name: [first, last].filter((part) => part).join(" ") || null,
          email: pick(STRINGS.email!),
          home_location_name: pick(STRINGS.home_location_name!),
          person_state: pick(PERSON_STATES),
          source_name: pick(SOURCE_NAMES),
          also_staff: chance(0.1) ? null : chance(0.3),
          has_membership: chance(0.5),
          is_schedulable: chance(0.7),
          completed_visits: chance(0.1) ? null : int(0, 5),
          net_paid_amount: pick([0, 100, 250, 1999, null]),
          client_since_date: chance(0.1) ? null : pick(DATES),
          birthdate: chance(0.2) ? null : pick(BIRTHDATES),
          last_visit_date: chance(0.5) ? null : pick(DATES),
          account_claim_date: chance(0.5) ? null : pick(DATES)
        })
      )
    }
  }
  return rows
}

// ---------------------------------------------------------------------------------------------
// The evaluator: each field's value computed here, independently of the catalog's SQL

const localDate = (now: Date, zone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now)
const dayNumber = (date: string) => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / 86_400_000
const fromDayNumber = (n: number) => new Date(n * 86_400_000).toISOString().slice(0, 10)

const age = (birthdate: string, today: string) => {
  const years = Number(today.slice(0, 4)) - Number(birthdate.slice(0, 4))
  return today.slice(5) < birthdate.slice(5) ? years - 1 : years
}
const tenureGroup = (days: number) =>
  days < 30 ? "0_month" : days < 90 ? "1_quarter" : days < 365 ? "2_year" : days < 730 ? "3_two_years" : days < 1095 ? "4_three_years" : "5_over_three_years"

type Value = string | number | boolean | null

const FIELDS: Record<string, { kind: Kind; value: (row: Row, today: string) => Value }> = {
  key: { kind: "string", value: (r) => r.key as string },
  business_id: { kind: "integer", value: (r) => r.business_id as number },
  person_id: { kind: "integer", value: (r) => r.person_id as number },
  first_name: { kind: "string", value: (r) => r.first_name as Value },
  last_name: { kind: "string", value: (r) => r.last_name as Value },
  full_name: { kind: "string", value: (r) => r.full_name as Value },
  email: { kind: "string", value: (r) => r.email as Value },
  home_location_name: { kind: "string", value: (r) => r.home_location_name as Value },
  business_subdomain: { kind: "string", value: (r) => r.business_subdomain as Value },
  person_state: { kind: "enum", value: (r) => r.person_state as Value },
  source_name: { kind: "enum", value: (r) => r.source_name as Value },
  also_staff: { kind: "boolean", value: (r) => r.also_staff as Value },
  has_membership: { kind: "boolean", value: (r) => r.has_membership as Value },
  is_schedulable: { kind: "boolean", value: (r) => r.is_schedulable as Value },
  completed_visits: { kind: "integer", value: (r) => r.completed_visits as Value },
  net_paid_amount: { kind: "currency", value: (r) => r.net_paid_amount as Value },
  client_since_date: { kind: "date", value: (r) => r.client_since_date as Value },
  birthdate: { kind: "date", value: (r) => r.birthdate as Value },
  last_visit_date: { kind: "date", value: (r) => r.last_visit_date as Value },
  age: { kind: "integer", value: (r, today) => (r.birthdate === null ? null : age(r.birthdate as string, today)) },
  tenure: { kind: "integer", value: (r, today) => (r.client_since_date === null ? null : dayNumber(today) - dayNumber(r.client_since_date as string)) },
  tenure_group: {
    kind: "enum",
    value: (r, today) => (r.client_since_date === null ? null : tenureGroup(dayNumber(today) - dayNumber(r.client_since_date as string)))
  },
  days_since_last_visit: {
    kind: "integer",
    value: (r, today) => (r.last_visit_date === null ? null : dayNumber(today) - dayNumber(r.last_visit_date as string))
  }
}

const since = (r: Row) => r.client_since_date as string | null
const bucket = (f: (date: string) => string) => ({ kind: "date" as const, value: (r: Row) => (since(r) === null ? null : f(since(r)!)) })
const GROUP_ONLY: Record<string, { kind: Kind; value: (row: Row, today: string) => Value }> = {
  client_since_month_start_date: bucket((d) => `${d.slice(0, 7)}-01`),
  client_since_quarter_start_date: bucket((d) => `${d.slice(0, 4)}-${String(Math.floor((Number(d.slice(5, 7)) - 1) / 3) * 3 + 1).padStart(2, "0")}-01`),
  client_since_year_start_date: bucket((d) => `${d.slice(0, 4)}-01-01`),
  client_since_week_mon_start_date: bucket((d) => fromDayNumber(dayNumber(d) - ((new Date(`${d}T00:00:00Z`).getUTCDay() + 6) % 7))),
  client_since_week_sun_start_date: bucket((d) => fromDayNumber(dayNumber(d) - new Date(`${d}T00:00:00Z`).getUTCDay()))
}
const ROW_VALUES = { ...FIELDS, ...GROUP_ONLY }

const GROUPS = [
  "business_id", "business_subdomain", "home_location_name", "person_state", "source_name", "also_staff", "has_membership",
  "is_schedulable", "client_since_date", "age", "tenure_group", ...Object.keys(GROUP_ONLY)
]

const SUMMARIES: Record<string, { kind: Kind; value: (rows: ReadonlyArray<Row>) => Value }> = {
  total_count: { kind: "integer", value: (rows) => rows.length },
  person_count: { kind: "integer", value: (rows) => new Set(rows.map((r) => r.person_id)).size },
  also_staff_count: { kind: "integer", value: (rows) => rows.filter((r) => r.also_staff === true).length },
  has_membership_count: { kind: "integer", value: (rows) => rows.filter((r) => r.has_membership === true).length },
  is_schedulable_count: { kind: "integer", value: (rows) => rows.filter((r) => r.is_schedulable === true).length },
  account_claim_count: { kind: "integer", value: (rows) => rows.filter((r) => r.account_claim_date !== null).length },
  total_completed_visits: { kind: "integer", value: (rows) => rows.reduce((sum, r) => sum + ((r.completed_visits as number | null) ?? 0), 0) },
  total_net_paid_amount: { kind: "currency", value: (rows) => rows.reduce((sum, r) => sum + ((r.net_paid_amount as number | null) ?? 0), 0) },
  business_id_summary: {
    kind: "string",
    value: (rows) => [...new Set(rows.map((r) => r.business_id as number))].sort((a, b) => a - b).join(",")
  }
}

const isText = (kind: Kind) => kind === "string" || kind === "enum"
const lower = (v: Value) => (typeof v === "string" ? v.toLowerCase() : v)

type Filter =
  | { op: "and" | "or"; filters: Array<Filter> }
  | { op: "eq" | "ne" | "gt" | "lt" | "contains" | "wo" | "starts" | "ends"; field: string; value: Value; sent: unknown }
  | { op: "btw"; field: string; low: Value; high: Value; sent: [unknown, unknown]; pair: boolean }
  | { op: "emp" | "nemp"; field: string }

const compare = (a: Value, b: Value) => (a! < b! ? -1 : a! > b! ? 1 : 0)

const matches = (filter: Filter, row: Row, today: string): boolean => {
  switch (filter.op) {
    case "and":
      return filter.filters.every((f) => matches(f, row, today))
    case "or":
      return filter.filters.some((f) => matches(f, row, today))
  }
  const { kind, value } = ROW_VALUES[filter.field]!
  const v = value(row, today)
  const text = isText(kind)
  switch (filter.op) {
    case "emp":
      return v === null || (text && v === "")
    case "nemp":
      return !(v === null || (text && v === ""))
    case "btw":
      return v !== null && compare(text ? lower(v) : v, text ? lower(filter.low) : filter.low) >= 0 &&
        compare(text ? lower(v) : v, text ? lower(filter.high) : filter.high) <= 0
  }
  const p = text ? lower(filter.value) : filter.value
  const x = text ? lower(v) : v
  switch (filter.op) {
    case "eq":
      return x !== null && x === p
    case "ne":
      return x === null || x !== p
    case "gt":
      return x !== null && compare(x, p) > 0
    case "lt":
      return x !== null && compare(x, p) < 0
    case "contains":
      return x !== null && (x as string).includes(p as string)
    case "wo":
      return x === null || !(x as string).includes(p as string)
    case "starts":
      return x !== null && (x as string).startsWith(p as string)
    case "ends":
      return x !== null && (x as string).endsWith(p as string)
  }
}

/** Orders by each key in turn: NULLs last in both directions, text by its lowercase. */
interface OrderKey<T> {
  readonly get: (item: T) => Value
  readonly kind: Kind
  readonly desc: boolean
  /** Text compared as is (the group value breaking ties), not by its lowercase. */
  readonly exact?: boolean
}
const order = <T>(keys: ReadonlyArray<OrderKey<T>>) => (a: T, b: T) => {
  for (const key of keys) {
    let x = key.get(a)
    let y = key.get(b)
    if (x === null && y === null) continue
    if (x === null) return 1
    if (y === null) return -1
    if (isText(key.kind) && !key.exact) {
      x = lower(x)
      y = lower(y)
    }
    const c = compare(x, y)
    if (c !== 0) return key.desc ? -c : c
  }
  return 0
}

const wire = (value: Value, kind: Kind) => (value === null ? null : kind === "boolean" ? (value ? "t" : "f") : value)

// ---------------------------------------------------------------------------------------------
// Queries

const filterableFields = [...Object.keys(FIELDS).filter((f) => f !== "key"), ...Object.keys(GROUP_ONLY)]

const valueFor = (field: string, rows: ReadonlyArray<Row>, today: string): Value => {
  const values = rows.map((r) => ROW_VALUES[field]!.value(r, today)).filter((v) => v !== null)
  const v = values.length > 0 && chance(0.85) ? pick(values) : null
  const kind = ROW_VALUES[field]!.kind
  if (v !== null) {
    if (kind === "string" && chance(0.3)) return (v as string).toUpperCase()
    if (kind === "string" && chance(0.3) && (v as string).length > 1) return (v as string).slice(0, int(1, (v as string).length - 1))
    return v
  }
  switch (kind) {
    case "string":
      return pick(["a", "x", "%", "n", "TEST"])
    case "enum":
      return field === "person_state" ? pick(PERSON_STATES) : field === "source_name" ? pick(SOURCE_NAMES) : "2_year"
    case "integer":
    case "currency":
      return int(0, 40)
    case "boolean":
      return chance(0.5)
    case "date":
      return pick(DATES)
  }
}

/** How a client may spell a value: booleans as t/f, integers as digit strings. */
const spell = (value: Value, kind: Kind): unknown => {
  if (kind === "boolean" && chance(0.5)) return value ? "t" : "f"
  if ((kind === "integer" || kind === "currency") && chance(0.3)) return String(value)
  return value
}

const makeFilter = (rows: ReadonlyArray<Row>, today: string, depth: number): Filter => {
  if (depth < 2 && chance(0.35)) {
    return { op: chance(0.5) ? "and" : "or", filters: Array.from({ length: int(1, 3) }, () => makeFilter(rows, today, depth + 1)) }
  }
  const field = pick(filterableFields)
  const kind = ROW_VALUES[field]!.kind
  const ops: Array<Filter["op"]> = ["eq", "ne", "emp", "nemp"]
  if (kind !== "boolean") ops.push("gt", "lt", "btw")
  if (isText(kind)) ops.push("contains", "wo", "starts", "ends")
  const op = pick(ops)
  if (op === "emp" || op === "nemp") return { op, field }
  if (op === "btw") {
    const [low, high] = [valueFor(field, rows, today), valueFor(field, rows, today)].sort((a, b) => compare(lower(a), lower(b)))
    return { op, field, low: low!, high: high!, sent: [spell(low!, kind), spell(high!, kind)], pair: chance(0.5) }
  }
  let value = valueFor(field, rows, today)
  // An equality test on an enum must name one of its values (others are refused as typos).
  if (kind === "enum" && (op === "eq" || op === "ne")) {
    value = field === "person_state" ? pick(PERSON_STATES) : field === "source_name" ? pick(SOURCE_NAMES) : "2_year"
  }
  return { op: op as "eq", field, value, sent: spell(value, kind) }
}

const filterJson = (filter: Filter): unknown => {
  switch (filter.op) {
    case "and":
    case "or":
      return [filter.op, filter.filters.map(filterJson)]
    case "emp":
    case "nemp":
      return [filter.op, filter.field]
    case "btw":
      return filter.pair ? ["btw", filter.field, filter.sent] : ["btw", filter.field, ...filter.sent]
    default:
      return [filter.op === "ne" && chance(0.3) ? "neq" : filter.op, filter.field, filter.sent]
  }
}

interface Expected {
  readonly rows: Array<Array<Value>>
  readonly keys: Array<string>
}

const evaluate = (
  rows: ReadonlyArray<Row>,
  query: { fields: Array<string>; group?: string; filter?: Filter; sort: Array<[string, boolean]> },
  scope: ReadonlyArray<number>,
  now: Date
): Expected => {
  const todayOf = (row: Row) => localDate(now, row.time_zone as string)
  const visible = rows.filter((r) => scope.includes(r.business_id as number) && (!query.filter || matches(query.filter, r, todayOf(r))))
  if (query.group === undefined) {
    const keys: Array<OrderKey<Row>> = [
      ...query.sort.map(([name, desc]) => ({ get: (r: Row) => FIELDS[name]!.value(r, todayOf(r)), kind: FIELDS[name]!.kind, desc })),
      { get: (r: Row) => r.business_id as number, kind: "integer", desc: false },
      { get: (r: Row) => r.person_id as number, kind: "integer", desc: false }
    ]
    const sorted = [...visible].sort(order(keys))
    return {
      rows: sorted.map((r) => query.fields.map((f) => wire(FIELDS[f]!.value(r, todayOf(r)), FIELDS[f]!.kind))),
      keys: sorted.map((r) => r.key as string)
    }
  }
  const group = ROW_VALUES[query.group]!
  const groups = new Map<string, { value: Value; rows: Array<Row> }>()
  for (const row of visible) {
    const value = group.value(row, todayOf(row))
    const id = JSON.stringify(value)
    const entry = groups.get(id) ?? { value, rows: [] }
    entry.rows.push(row)
    groups.set(id, entry)
  }
  type G = { value: Value; rows: Array<Row> }
  const keys: Array<OrderKey<G>> = query.sort.map(([name, desc]) =>
    name === "group_label"
      ? { get: (g: G) => g.value, kind: group.kind, desc }
      : { get: (g: G) => SUMMARIES[name]!.value(g.rows), kind: SUMMARIES[name]!.kind, desc }
  )
  if (keys.length === 0 && isText(group.kind)) keys.push({ get: (g) => g.value, kind: group.kind, desc: false })
  // The group value itself (exact, not lowercased) breaks ties.
  keys.push({ get: (g) => g.value, kind: group.kind, desc: false, exact: true })
  const sorted = [...groups.values()].sort(order(keys))
  return {
    rows: sorted.map((g) => [wire(g.value, group.kind), ...query.fields.map((f) => wire(SUMMARIES[f]!.value(g.rows), SUMMARIES[f]!.kind))]),
    keys: sorted.map((g) => (g.value === null ? "null" : `v:${String(g.value)}`))
  }
}

// ---------------------------------------------------------------------------------------------

let store: Awaited<ReturnType<typeof memoryStore>>
let rows: Array<Row>

beforeAll(async () => {
  rows = makeRows()
  store = await memoryStore(rows)
})
afterAll(() => store?.close())

describe(`compiled queries agree with the evaluator (seed ${SEED})`, () => {
  it(`on ${QUERIES} random queries, page by page`, async () => {
    let pages = 0
    for (let n = 0; n < QUERIES; n++) {
      const now = pick([new Date("2024-06-15T12:00:00Z"), new Date("2024-06-15T03:00:00Z"), new Date("2024-06-14T13:00:00Z")])
      const scope = some(BUSINESSES, 1, 3).sort()
      const grouped = chance(0.35)
      const sampleToday = localDate(now, "UTC")
      const filter = chance(0.8) ? makeFilter(rows, sampleToday, 0) : undefined
      const group = grouped ? pick(GROUPS) : undefined
      const fields = grouped ? some(Object.keys(SUMMARIES), 1, 3) : some(Object.keys(FIELDS), 1, 4)
      const sortable = grouped ? ["group_label", ...Object.keys(SUMMARIES)] : Object.keys(FIELDS)
      const sort: Array<[string, boolean]> = some(sortable, 0, 2).map((name) => [name, chance(0.5)])
      const limit = int(3, 40)
      const totalCount = chance(0.3)
      const request = {
        fields,
        ...(group ? { group } : {}),
        ...(filter ? { filter: filterJson(filter) } : {}),
        ...(sort.length > 0 ? { sort: sort.map(([name, desc]) => `${name}${desc ? "-" : "+"}`) } : {}),
        total_count: totalCount
      }
      const expected = evaluate(rows, { fields, ...(group ? { group } : {}), ...(filter ? { filter } : {}), sort }, scope, now)
      const context = `query ${n}: ${JSON.stringify(request)} scope ${JSON.stringify(scope)} now ${now.toISOString()}`

      const got: Array<Array<unknown>> = []
      let after: string | null = null
      for (;;) {
        const result: Awaited<ReturnType<typeof page>> = await page(
          store.connection,
          { ...request, page: after === null ? { limit } : { limit, starting_after: after } },
          { scope, now }
        )
        pages += 1
        const offset = got.length
        got.push(...result.rows.map((r) => [...r]))
        expect(result.hasMore, context).toBe(offset + result.rows.length < expected.rows.length)
        if (result.rows.length > 0) expect(result.lastKey, context).toBe(expected.keys[offset + result.rows.length - 1])
        if (totalCount) expect(result.totalCount, context).toBe(expected.rows.length)
        if (!result.hasMore) break
        after = result.lastKey
      }
      expect(got, context).toEqual(expected.rows)
    }
    expect(pages).toBeGreaterThan(QUERIES)
  })
})
