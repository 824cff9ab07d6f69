import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import type { TestResponse } from "../support/http.ts"
import { NOW, type Studio, setUpStudio } from "../support/studio.ts"

/**
 * Bad input, every documented operation: each path, query parameter and body field of the
 * served OpenAPI document is sent values of the wrong kind (strings for ids, ids past 32 and 53
 * bits, lists mixing small and large ids, impossible dates, nesting, empty and huge strings,
 * broken JSON and broken form encoding), as the studio's owner on desk paths and its client on
 * front paths, half of them in French and half in an unknown locale. Every answer must be below
 * 500, and every refusal the error model's `{"errors": [strings]}` (or `{"error": string}` of the
 * authentication refusals). New endpoints are swept as soon as the document names them.
 * Then every write operation again, one request at a time, with PostgreSQL counting the rows
 * each committed: a refusal must have changed none.
 */
const clock = makeSettableClock(NOW)
let s: Studio
beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 50 })
}, 120_000)
afterAll(async () => s?.server.close())

const BIG = "2147483648" // one past int4: an id list mixing it with small ids once failed in the SQL driver
const BODY_VALUES = [
  `"x"`, `""`, `-1`, `0`, `1.5`, `1e300`, BIG, `-2147483649`, `9007199254740993`, `9223372036854775808`, `"${BIG}"`,
  `[]`, `{}`, `null`, `true`, `[{}]`, `[null]`, `[1.5]`, `[1, ${BIG}]`, `[${BIG}, 1]`, `[{"id":1},{"id":${BIG}}]`, `{"id":${BIG}}`,
  `{"a":{"b":{"c":[[[]]]}}}`, `"\\u0000"`, JSON.stringify("a".repeat(5000)),
  `"2026-02-30T25:00:00Z"`, `"9999-12-31T23:59:59Z"`, `"0001-01-01T00:00:00Z"`, `"275760-09-13"`, `"+002026-01-01T00:00:00Z"`
]
const PATH_VALUES = ["abc", "-1", "0", "1.5", "1e3", "%20", "%ZZ", BIG, "-2147483649", "9007199254740993", "99999999999999999999"]
const QUERY_VALUES = [
  "abc", "", "-1", "0", "true", "1e309", BIG, "9223372036854775808", `1,${BIG}`, `${BIG},1,2`, "-2147483649,1", "1,2,x",
  "2026-13-45", "9999-12-31", "0001-01-01T00:00:00Z", "275760-09-13", "a".repeat(3000), "[", "%ZZ"
]
const EXTRA_QUERIES = ["page=-1", "per_page=0", "page=99999999999999999999", "per_page=abc", "sort=%ZZ", "include=%00", "a[b][c]=1", "x=%E0%A4%A"]
const RAW_BODIES = ["{", "[]", "null", `"x"`, "123", "{}"]

interface Probe {
  readonly method: string
  readonly path: string
  readonly body?: string
  readonly contentType?: string
  readonly front: boolean
}

type Schema = { $ref?: string; type?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: ReadonlyArray<Schema> }
interface Operation {
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string }>
  readonly requestBody?: { readonly content?: Record<string, { readonly schema?: Schema }> }
}

/** A path parameter naming a record that exists: id 1, or the enrollments report. */
const existingParam = (param: string) => (param === "resource" ? "enrollments" : "1")
const existingPath = (path: string) => path.replace(/\{([^}]+)\}/g, (_, param) => existingParam(param))

/** An operation's JSON body: the JSON:API endpoints (reports, webhooks v3) take their own media type. */
const jsonBodyOf = (operation: Operation, deref: (schema: Schema | undefined) => Schema | undefined) => {
  const jsonType = operation.requestBody?.content?.["application/json"] ? "application/json" : "application/vnd.api+json"
  return { jsonType, schema: deref(operation.requestBody?.content?.[jsonType]?.schema) }
}

/** Every probe of one operation: its path parameters, query parameters and body fields, one at a time. */
const probesOf = (path: string, method: string, operation: Operation, deref: (schema: Schema | undefined) => Schema | undefined) => {
  const probes: Array<Probe> = []
  const front = path.includes("/front/")
  const hasBody = method !== "get" && method !== "delete"
  const emptyBody = hasBody ? "{}" : undefined
  const add = (probe: Omit<Probe, "method" | "front">) => probes.push({ method: method.toUpperCase(), front, ...probe })
  const parameters = operation.parameters ?? []
  const withPath = (value: string, name: string) => path.replace(/\{([^}]+)\}/g, (_, param) => (name === param ? value : existingParam(param)))
  for (const param of parameters.filter((p) => p.in === "path")) {
    for (const value of PATH_VALUES) add({ path: withPath(value, param.name), ...(emptyBody ? { body: emptyBody } : {}) })
  }
  const base = existingPath(path)
  const query = (text: string) => add({ path: `${base}?${text}`, ...(emptyBody ? { body: emptyBody } : {}) })
  for (const param of parameters.filter((p) => p.in === "query")) {
    for (const value of QUERY_VALUES) query(`${encodeURIComponent(param.name)}=${value.startsWith("%") ? value : encodeURIComponent(value)}`)
  }
  for (const text of EXTRA_QUERIES) query(text)
  if (operation.requestBody === undefined) return probes
  const { jsonType, schema } = jsonBodyOf(operation, deref)
  const json = (body: string) => add({ path: base, body, contentType: jsonType })
  const form = (body: string) => add({ path: base, body, contentType: "application/x-www-form-urlencoded" })
  for (const raw of RAW_BODIES) json(raw)
  for (const [wrapper, wrapped] of Object.entries(schema?.properties ?? {})) {
    for (const value of [`null`, `"x"`, `[]`, `1`]) json(`{"${wrapper}":${value}}`)
    const fields = deref(wrapped)?.properties ?? {}
    for (const [field, fieldSchema] of Object.entries(fields)) {
      for (const value of BODY_VALUES) json(`{"${wrapper}":{"${field}":${value}}}`)
      // One level further: the fields of a list of objects, or of an object.
      const declared = deref(fieldSchema)
      const member = (type: string) => (declared?.type === type ? declared : deref(declared?.anyOf?.find((option) => deref(option)?.type === type)))
      for (const sub of Object.keys(deref(member("array")?.items)?.properties ?? {})) {
        for (const value of BODY_VALUES) json(`{"${wrapper}":{"${field}":[{"${sub}":${value}}]}}`)
      }
      for (const sub of Object.keys(member("object")?.properties ?? {})) {
        for (const value of BODY_VALUES) json(`{"${wrapper}":{"${field}":{"${sub}":${value}}}}`)
      }
      for (const text of ["x", "%ZZ", "-1", `${BIG}`]) form(`${wrapper}[${field}]=${text}`)
      for (const text of [`${wrapper}[${field}][]=x`, `${wrapper}[${field}][]=`, `${wrapper}[${field}][0][a]=x`, `${wrapper}[${field}][a][b][c][d]=1`, `${wrapper}=x&${wrapper}[${field}]=1`]) form(text)
    }
    const names = Object.keys(fields)
    json(JSON.stringify({ [wrapper]: Object.fromEntries(names.map((name) => [name, 1])) }))
    json(JSON.stringify({ [wrapper]: Object.fromEntries(names.map((name) => [name, "1"])) }))
  }
  return probes
}

/** A refusal in the error model, or an answer that is not one (below 400). */
const wellFormed = (response: TestResponse) =>
  response.status < 400 ||
  (Array.isArray(response.json?.errors) && response.json.errors.length > 0 && response.json.errors.every((e: unknown) => typeof e === "string")) ||
  typeof response.json?.error === "string"

describe("bad input across the OpenAPI document", () => {
  it("never answers 5xx, and refuses in the error model", async () => {
    const document = (await s.server.request("GET", "/api/openapi.json")).json
    const deref = (schema: Schema | undefined): Schema | undefined =>
      schema?.$ref === undefined ? schema : deref(document.components.schemas[schema.$ref.split("/").pop()!])
    const probes: Array<Probe> = []
    let operations = 0
    for (const [path, methods] of Object.entries<Record<string, Operation>>(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        operations++
        probes.push(...probesOf(path, method, operation, deref))
      }
    }
    const failures: Array<string> = []
    const statuses = new Map<number, number>()
    let next = 0
    const send = async (probe: Probe, index: number) => {
      const headers = { "x-fd-locale": index % 2 === 0 ? "fr" : "xx-YY", ...(probe.body === undefined ? {} : { "content-type": probe.contentType ?? "application/json" }) }
      const response = await s.server.request(probe.method, probe.path, { token: probe.front ? s.cleo.token : s.owner.token, headers, ...(probe.body === undefined ? {} : { body: probe.body }) })
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      if (response.status >= 500 || !wellFormed(response)) {
        failures.push(`${probe.method} ${probe.path} ${probe.body?.slice(0, 200) ?? ""} -> ${response.status} ${response.text.slice(0, 300)}`)
      }
    }
    await Promise.all(Array.from({ length: 6 }, async () => {
      while (next < probes.length) {
        const index = next++
        await send(probes[index]!, index)
      }
    }))
    expect(failures, failures.slice(0, 20).join("\n")).toEqual([])
    // The sweep reached the whole document and the handlers' own rules, not only the decoders.
    expect(operations).toBeGreaterThan(150)
    expect(probes.length).toBeGreaterThan(10_000)
    for (const status of [400, 404, 422]) expect(statuses.get(status) ?? 0).toBeGreaterThan(100)
  }, 600_000)
})

describe("id lists mixing ids on both sides of 32 bits", () => {
  it("answer as if the large id matched nothing", async () => {
    const occurrence = s.yoga("2026-11-05").id
    const listed = await s.server.request("GET", `/api/v2/desk/event_occurrences?ids=${occurrence},${BIG}`, { token: s.owner.token })
    expect(listed.status, listed.text).toBe(200)
    expect(listed.json.event_occurrences.map((o: { id: number }) => o.id)).toEqual([occurrence])

    const invoices = await s.server.request("GET", `/api/v2/desk/invoices?person_ids=${s.cleo.personId},${BIG}`, { token: s.owner.token })
    expect(invoices.status, invoices.text).toBe(200)

    const invoice = await s.server.request("POST", "/api/v2/desk/invoices", { token: s.owner.token, body: { invoice: { payer_id: Number(BIG) } } })
    expect(invoice.status, invoice.text).toBe(422)
    expect(invoice.json.errors).toContain(`payer_id ${BIG} does not exist`)
  })
})

describe("the calendar's edges", () => {
  const desk = (method: string, path: string, body?: unknown) =>
    s.server.request(method, `/api/v2/desk${path}`, { token: s.owner.token, ...(body === undefined ? {} : { body }) })

  it("a year below 100 stays that year (Date.UTC would read 0001 as 1901)", async () => {
    const lease = { service_id: s.services.private, staff_member_id: s.ines.staffMemberId, location_id: s.main, person: { id: s.cleo.personId } }
    const early = await desk("POST", "/bookings", { booking: { leases: [{ ...lease, start_at: "0001-01-03T18:00:00Z" }] } })
    expect(early.json).toEqual({ errors: ["leases[0].start_at: the appointment time 0001-01-03T18:00:00Z is not available"] })
  })

  it("appointment times up to 9999-12-31 answer, the last days without slots", async () => {
    const slots = await desk("GET", `/appointments/${s.services.private}/available_slots?date=9999-12-31`)
    expect(slots.status, slots.text).toBe(200)
    expect(slots.json).toEqual({ available_slots: [] })
    const summary = await desk("GET", `/appointments/${s.services.private}/available_slots/summary?from=9999-12-29&to=9999-12-31`)
    expect(summary.status, summary.text).toBe(200)
    expect(Object.keys(summary.json)).toEqual(["9999-12-29", "9999-12-30", "9999-12-31"])
  })

  it("a pack's commitment is at most a hundred years, and one that would end after 9999 is refused", async () => {
    const product = { name: "Century", price_cents: 100, count: 5, commitment_unit: "month", visibility: "everyone" }
    const endless = await desk("POST", "/pack_products", { pack_product: { ...product, commitment_length: 2147483647 } })
    expect(endless.status, endless.text).toBe(422)
    expect(endless.json.errors).toEqual(["commitment_length must be less than or equal to 1200"])
    const century = await desk("POST", "/pack_products", { pack_product: { ...product, commitment_length: 1200 } })
    expect(century.status, century.text).toBe(201)
    const id = century.json.pack_products[0].id
    const late = await desk("POST", `/pack_products/${id}/packs`, { pack: { person_ids: [s.cleo.personId], start_date: "9999-12-31" } })
    expect(late.status, late.text).toBe(422)
    const early = await desk("POST", `/pack_products/${id}/packs`, { pack: { person_ids: [s.cleo.personId], start_date: "0001-01-01" } })
    expect(early.status, early.text).toBe(201)
    expect(early.json.packs[0]).toMatchObject({ start_date: "0001-01-01", end_date: "0101-01-01" })
  })
})

/**
 * Every row a committed statement changes, counted by a row trigger on each table of the test
 * database; `rate_limit_budgets` is left out, since every request may renew its budget there.
 */
const countCommittedRows = async (studio: Studio) => {
  await studio.pool.query(`
    create table sweep_rows (changed bigint not null, last_table text);
    insert into sweep_rows values (0, null);
    create function sweep_row_changed() returns trigger language plpgsql as $$
    begin update sweep_rows set changed = changed + 1, last_table = tg_table_name; return null; end $$`)
  const { rows } = await studio.pool.query(
    `select tablename from pg_tables where schemaname = 'public' and tablename not in ('sweep_rows', 'rate_limit_budgets')`
  )
  for (const { tablename } of rows) {
    await studio.pool.query(`create trigger sweep_row_changed after insert or update or delete on "${tablename}" for each row execute function sweep_row_changed()`)
  }
  return async () => (await studio.pool.query("select changed, last_table from sweep_rows")).rows[0] as { changed: string; last_table: string | null }
}

const WRITE_VALUES = [`"x"`, `""`, `-1`, `0`, `1`, `2`, `3`, `1.5`, BIG, `[]`, `{}`, `null`, `true`, `[1]`, `[1, ${BIG}]`, `[{"id":1}]`,
  `"2026-11-10T10:00:00Z"`, `"2026-11-10"`, `"9999-12-31T23:59:59Z"`, JSON.stringify("a".repeat(300))]

describe("refused writes", () => {
  it("change no row", async () => {
    const committed = await countCommittedRows(s)
    const document = (await s.server.request("GET", "/api/openapi.json")).json
    const deref = (schema: Schema | undefined): Schema | undefined =>
      schema?.$ref === undefined ? schema : deref(document.components.schemas[schema.$ref.split("/").pop()!])
    // Each field alone, then every field of the body at once with the same value (past the decoder, into the rules).
    const probes: Array<Probe> = []
    for (const [path, methods] of Object.entries<Record<string, Operation>>(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (method === "get") continue
        const probe = { method: method.toUpperCase(), path: existingPath(path), front: path.includes("/front/") }
        const { jsonType, schema } = jsonBodyOf(operation, deref)
        if (schema === undefined) probes.push(probe)
        for (const [wrapper, wrapped] of Object.entries(schema?.properties ?? {})) {
          const fields = Object.keys(deref(wrapped)?.properties ?? {})
          const typed = { ...probe, contentType: jsonType }
          for (const field of fields) for (const value of WRITE_VALUES) probes.push({ ...typed, body: `{"${wrapper}":{"${field}":${value}}}` })
          for (const value of WRITE_VALUES) probes.push({ ...typed, body: `{"${wrapper}":{${fields.map((field) => `"${field}":${value}`).join(",")}}}` })
        }
      }
    }
    const partial: Array<string> = []
    let refusedByRules = 0
    for (const probe of probes) {
      const before = await committed()
      const headers: Record<string, string> = probe.body === undefined ? {} : { "content-type": probe.contentType ?? "application/json" }
      const response = await s.server.request(probe.method, probe.path, { token: probe.front ? s.cleo.token : s.owner.token, headers, ...(probe.body === undefined ? {} : { body: probe.body }) })
      if (response.status < 400) continue
      if (response.status === 422) refusedByRules++
      const after = await committed()
      if (after.changed !== before.changed) {
        partial.push(`${probe.method} ${probe.path} ${probe.body?.slice(0, 160) ?? ""} -> ${response.status}, ${Number(after.changed) - Number(before.changed)} rows (last in ${after.last_table})`)
      }
    }
    expect(partial, partial.slice(0, 20).join("\n")).toEqual([])
    expect(probes.length).toBeGreaterThan(4_000)
    expect(refusedByRules).toBeGreaterThan(300)
  }, 600_000)
})
