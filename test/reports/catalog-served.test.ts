import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REPORT_RESOURCES, resourceCatalog } from "../../reports/catalog/resources.ts"
import { closestNames } from "../../reports/suggest.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import type { StaffRole } from "../../src/access/tokens.ts"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import type { TestResponse } from "../support/http.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * The served catalog: every resource's fields over HTTP equal what the query
 * compiler accepts (each listed name is queried, filtered with each listed operation and
 * sorted; an unlisted one is refused), grants, "did you mean", the OpenAPI enumerations.
 */

interface Field {
  name: string
  type: string
  description: string
  values?: Array<string>
  filterable: boolean
  sortable: boolean
  operators: Array<string>
}

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-catalog-${process.pid}`)
const tokens: Record<string, string> = {}

/** `token: null` sends none. */
const get = (url: string, token: string | null = tokens.owner!) => server.request("GET", url, token === null ? {} : { token })
const query = (resource: string, attributes: unknown): Promise<TestResponse> =>
  server.request("POST", `/desk/api/v3/reports/${resource}/queries`, {
    token: tokens.owner!,
    body: { data: { type: "queries", attributes } },
    headers: { "content-type": "application/vnd.api+json" }
  })
const ok = (response: TestResponse, what: string) => expect(response.status, `${what}: ${response.text}`).toBe(200)
const errorsOf = (response: TestResponse): Array<string> => response.json.errors

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  // Every name of every resource is queried: far beyond the 60 queries a minute of a token.
  server = await startTestServer({ dataDir, reportRateLimit: 100_000 })
  const pool = server.pool
  await createApplication(pool, "test-app")
  const demo = await createBusiness(pool, { subdomain: "demo", name: "Demo Studio" })
  const staff = async (name: string, role: StaffRole) => {
    const person = await createPerson(pool, demo.id, { first_name: name, last_name: "Staff", role })
    tokens[name] = await createToken(pool, person.accountId, demo.id)
    return person
  }
  await staff("owner", "owner")
  await staff("standard", "standard")
  const granted = await staff("granted", "standard")
  await pool.query(`insert into report_grants (business_id, staff_member_id) values ($1, $2)`, [demo.id, granted.staffMemberId])
  tokens.client = await createToken(pool, (await createPerson(pool, demo.id, { first_name: "Cli", last_name: "Ent" })).accountId, demo.id)
  await createPerson(pool, demo.id, { first_name: "Ann", last_name: "Archer", email: "ann@example.test" })
  await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(dataDir, "reports"), mode: "full" })
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** A value of a type that a filter accepts (enums: one of their values). */
const sample = (field: Field): unknown => {
  switch (field.type) {
    case "boolean":
      return "t"
    case "currency":
    case "integer":
      return 1
    case "float":
      return 1.5
    case "date":
      return "2024-01-01"
    case "datetime":
      return "2024-01-01T00:00:00Z"
    case "time":
      return "10:00:00"
    case "enum":
      return field.values?.[0] ?? "x"
    default:
      return "a"
  }
}
const filterWith = (op: string, field: Field): unknown =>
  op === "emp" || op === "nemp" ? [op, field.name] : op === "btw" ? [op, field.name, sample(field), sample(field)] : [op, field.name, sample(field)]
const ALL_OPERATIONS = ["eq", "ne", "gt", "lt", "btw", "contains", "wo", "starts", "ends", "emp", "nemp"]

describe("GET /desk/api/v3/reports", () => {
  it("lists every resource with links to its catalog and its queries", async () => {
    const response = await get("/desk/api/v3/reports")
    ok(response, "list")
    expect(response.headers["content-type"]).toBe("application/vnd.api+json")
    expect(response.json.data.map((r: { id: string }) => r.id)).toEqual([...REPORT_RESOURCES])
    expect(response.json.data).toHaveLength(12)
    expect(response.json.data[0]).toMatchObject({
      type: "report_resources",
      id: "clients",
      links: { self: "/desk/api/v3/reports/clients", queries: "/desk/api/v3/reports/clients/queries" }
    })
  })

  it("is for owners and granted staff only, like queries", async () => {
    ok(await get("/desk/api/v3/reports", tokens.granted), "granted")
    expect((await get("/desk/api/v3/reports", tokens.standard)).status).toBe(403)
    expect((await get("/desk/api/v3/reports/clients", tokens.standard)).status).toBe(403)
    expect((await get("/desk/api/v3/reports/clients", tokens.client)).status).toBe(403)
    expect((await get("/desk/api/v3/reports", null)).status).toBe(401)
    expect((await get("/desk/api/v3/reports/clients", null)).status).toBe(401)
    const unknown = await get("/desk/api/v3/reports/nope")
    expect(unknown.status).toBe(404)
    expect(errorsOf(unknown)).toEqual(['Unknown report resource "nope"'])
  })
})

describe.each([...REPORT_RESOURCES])("GET /desk/api/v3/reports/%s", (resource) => {
  let described: { detail_fields: Array<Field>; summary_fields: Array<Field>; groupings: Array<Field>; logical_fields: Array<{ name: string }> }
  beforeAll(async () => {
    const response = await get(`/desk/api/v3/reports/${resource}`)
    ok(response, "describe")
    expect(response.json.data).toMatchObject({ type: "report_resources", id: resource })
    described = response.json.data.attributes
  })

  it("describes every name of the compiler's catalog, each with a type and a description", () => {
    const catalog = resourceCatalog(resource)!
    expect(described.detail_fields.map((f) => f.name)).toEqual([...catalog.detail.keys()])
    expect(described.summary_fields.map((f) => f.name)).toEqual([...catalog.summary.keys()])
    expect(described.groupings.map((f) => f.name)).toEqual([...catalog.groupings.keys()])
    expect(described.logical_fields.map((f) => f.name)).toEqual([...catalog.logical.keys()])
    for (const field of [...described.detail_fields, ...described.summary_fields, ...described.groupings]) {
      expect(field.description, field.name).toMatch(/\S/)
      expect(field.type, field.name).toBe((catalog.detail.get(field.name) ?? catalog.groupings.get(field.name) ?? catalog.summary.get(field.name))!.type)
      if (field.type === "enum" && field.values) expect(field.values.length).toBeGreaterThan(0)
    }
  })

  it("every detail field queries, filters with each listed operation and sorts; the others are refused", async () => {
    const names = [...described.detail_fields.map((f) => f.name), ...described.logical_fields.map((f) => f.name)]
    ok(await query(resource, { fields: names, page: { limit: 1 } }), "all detail fields")
    const rowValues = new Map([...described.detail_fields, ...described.groupings].map((f) => [f.name, f]))
    ok(await query(resource, { fields: ["key"], sort: [...rowValues.keys()].map((n) => `${n}-`), page: { limit: 1 } }), "sort by every row value")
    for (const field of rowValues.values()) {
      expect(field.filterable && field.sortable, field.name).toBe(true)
      for (const op of ALL_OPERATIONS) {
        const response = await query(resource, { fields: ["key"], filter: filterWith(op, field), page: { limit: 1 } })
        if (field.operators.includes(op)) ok(response, `${op} ${field.name}`)
        else expect(response.status, `${op} ${field.name} ${response.text}`).toBe(400)
      }
    }
    expect((await query(resource, { fields: ["not_a_field"] })).status).toBe(400)
  })

  it("every grouping groups, every summary field sums and sorts; an unlisted grouping is refused", async () => {
    const summaries = described.summary_fields.map((f) => f.name)
    for (const field of described.summary_fields) expect([field.filterable, field.sortable, field.operators], field.name).toEqual([false, true, []])
    for (const grouping of described.groupings) {
      ok(await query(resource, { group: grouping.name, fields: ["total_count"], page: { limit: 1 } }), `group ${grouping.name}`)
    }
    ok(
      await query(resource, { group: described.groupings[0]!.name, fields: summaries, sort: summaries.map((n) => `${n}-`), page: { limit: 1 } }),
      "all summary fields"
    )
    expect((await query(resource, { group: "not_a_grouping", fields: ["total_count"] })).status).toBe(400)
  })
})

describe("did you mean", () => {
  it("names the closest fields, groupings, filter fields and operations", async () => {
    const field = await query("clients", { fields: ["name"] })
    expect(field.status).toBe(400)
    expect(errorsOf(field)).toEqual(['Unknown field "name" for clients: did you mean `full_name`, `last_name`, `first_name`?'])
    expect(errorsOf(await query("clients", { fields: ["full_nmae"] }))).toEqual([
      'Unknown field "full_nmae" for clients: did you mean `full_name`?'
    ])
    expect(errorsOf(await query("clients", { fields: ["total_count"], group: "person_stat" }))).toEqual([
      'Unknown group "person_stat" for clients: did you mean `person_state`?'
    ])
    expect(errorsOf(await query("clients", { fields: ["key"], filter: ["eq", "emial", "x"] }))).toEqual([
      'filter: unknown field "emial": did you mean `email`?'
    ])
    expect(errorsOf(await query("clients", { fields: ["key"], filter: ["contain", "email", "x"] }))).toEqual([
      'filter: unknown filter operation "contain": did you mean `contains`?'
    ])
    // Nothing close: the plain message.
    expect(errorsOf(await query("clients", { fields: ["zzzzzzzz"] }))).toEqual(['Unknown field "zzzzzzzz" for clients'])
  })

  it("ranks by edit distance, then by name", () => {
    expect(closestNames("stat", ["status", "state", "start_at"])).toEqual(["state"])
    expect(closestNames("full_nmae", ["last_name", "full_name", "first_name"])).toEqual(["full_name"])
    expect(closestNames("name", ["first_name", "full_name", "last_name", "key"])).toEqual(["full_name", "last_name", "first_name"])
    expect(closestNames("xyz", ["full_name"])).toEqual([])
    expect(closestNames(`name${"x".repeat(100)}`, ["full_name"])).toEqual([])
  })
})

describe("the OpenAPI document", () => {
  it("enumerates each resource's fields and groupings in the query endpoint", async () => {
    const spec = (await server.request("GET", "/api/openapi.json")).json
    const post = spec.paths["/desk/api/v3/reports/{resource}/queries"].post
    const resourceParameter = post.parameters.find((p: { name: string }) => p.name === "resource")
    expect(resourceParameter.schema.enum).toEqual([...REPORT_RESOURCES])
    for (const media of Object.values(post.requestBody.content) as Array<{ examples: Record<string, any> }>) {
      for (const resource of REPORT_RESOURCES) {
        const catalog = resourceCatalog(resource)!
        expect(media.examples[resource].value.data.attributes.fields).toEqual([...catalog.detail.keys(), ...catalog.logical.keys()])
        expect(media.examples[`${resource}_grouped`].value.data.attributes.fields).toEqual([...catalog.summary.keys()])
        for (const grouping of catalog.groupings.keys()) expect(media.examples[`${resource}_grouped`].description).toContain(`\`${grouping}\``)
      }
    }
    expect(spec.paths["/desk/api/v3/reports/{resource}"].get).toBeDefined()
    expect(spec.paths["/desk/api/v3/reports"].get).toBeDefined()
  })
})
