import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TENURE_GROUPS, clientsCatalog } from "../../reports/catalog/clients.ts"
import { REPORT_RESOURCES } from "../../reports/catalog/resources.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import type { StaffRole } from "../../src/access/tokens.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createCustomField, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type RequestOptions, type TestResponse } from "../support/http.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer, startTestServerOn } from "../support/server.ts"
import { rowsOf } from "./support.ts"

/**
 * The Reporting API over HTTP: every clients field, grouping and sort, the malformed queries
 * of the issue, access, franchise scoping, the resources without data, rate limits.
 */

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-http-${process.pid}`)
let demo: { id: number; subdomain: string }
let holding: { id: number; subdomain: string }
let east: { id: number; subdomain: string }
let west: { id: number; subdomain: string }
const tokens: Record<string, string> = {}
let ann: Awaited<ReturnType<typeof createPerson>>
let kid: Awaited<ReturnType<typeof createPerson>>
let shirt: { id: number }

const PATH = (resource: string) => `/desk/api/v3/reports/${resource}/queries`

const query = (attributes: unknown, options: RequestOptions & { resource?: string; on?: TestServer } = {}): Promise<TestResponse> =>
  (options.on ?? server).request("POST", PATH(options.resource ?? "clients"), {
    token: tokens.owner!,
    ...options,
    body: options.body ?? { data: { type: "queries", attributes } },
    headers: { "content-type": "application/vnd.api+json", ...options.headers }
  })


const todayIn = (zone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date())
const daysBetween = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir })
  const pool = server.pool
  await createApplication(pool, "test-app")
  demo = await createBusiness(pool, { subdomain: "demo", name: "Demo Studio", time_zone: "America/Los_Angeles" })
  await createBusiness(pool, { subdomain: "elsewhere" })
  holding = await createBusiness(pool, { subdomain: "holding", name: "Holding" })
  east = await createBusiness(pool, { subdomain: "east", name: "East", franchise_parent_id: holding.id })
  west = await createBusiness(pool, { subdomain: "west", name: "West", franchise_parent_id: holding.id })

  const staff = async (business: { id: number }, name: string, role: StaffRole) => {
    const person = await createPerson(pool, business.id, { first_name: name, last_name: "Staff", role })
    tokens[name] = await createToken(pool, person.accountId, business.id)
    return person
  }
  await staff(demo, "owner", "owner")
  await staff(demo, "primary", "primary_owner")
  await staff(demo, "manager", "manager")
  const granted = await staff(demo, "granted", "standard")
  await pool.query(`insert into report_grants (business_id, staff_member_id) values ($1, $2)`, [demo.id, granted.staffMemberId])
  tokens.client = await createToken(pool, (await createPerson(pool, demo.id, { first_name: "Cli", last_name: "Ent" })).accountId, demo.id)
  await staff(holding, "holdingOwner", "owner")
  await staff(east, "eastOwner", "owner")
  await createPerson(pool, east.id, { first_name: "Eve", last_name: "East" })
  await createPerson(pool, west.id, { first_name: "Wes", last_name: "West" })

  const downtown = await createLocation(pool, demo.id, { name: "Downtown" })
  ann = await createPerson(pool, demo.id, { first_name: "Ann", last_name: "Archer", email: "ann@example.test" })
  kid = await createPerson(pool, demo.id, { first_name: "Kid", last_name: "Archer", email: "kid@example.test" })
  await pool.query(
    `update people set birthdate = '1990-06-15', phone = '555-0100', middle_name = 'Q', location_id = $3,
       joined_at = '2023-01-10T20:00:00Z' where business_id = $1 and id = $2`,
    [demo.id, ann.personId, downtown.id]
  )
  await pool.query(`update accounts set password_hash = 'x', email_confirmed_at = '2024-05-02T03:00:00Z' where id = $1`, [ann.accountId])
  // Ann is a member: she holds an unlimited membership.
  const membership = await createPlanProduct(pool, demo.id, { kind: "membership", name: "Unlimited" })
  await createPlan(pool, demo.id, membership.id, [ann.personId], { start_date: "2023-01-10" })
  await pool.query(`insert into person_relationships (business_id, provider_id, dependent_id) values ($1, $2, $3)`, [
    demo.id,
    ann.personId,
    kid.personId
  ])
  const bob = await createPerson(pool, demo.id, { first_name: "Bob", last_name: "Baker" })
  await pool.query(`update people set hidden_at = now() where business_id = $1 and id = $2`, [demo.id, bob.personId])
  const cy = await createPerson(pool, demo.id, { first_name: "Cy", last_name: "Cole" })
  await pool.query(`update people set deleted_at = now() where business_id = $1 and id = $2`, [demo.id, cy.personId])
  shirt = await createCustomField(pool, demo.id, { name: "Shirt size", data_type: "select", options: ["S", "M"] })

  await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(dataDir, "reports"), mode: "full" })
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("POST /desk/api/v3/reports/clients/queries", () => {
  it("answers a JSON:API document with typed fields, rows and paging attributes", async () => {
    const response = await query({ fields: ["first_name", "last_name"], sort: ["last_name+", "first_name+"], page: { limit: 2 }, total_count: true })
    expect(response.status).toBe(200)
    expect(response.headers["content-type"]).toBe("application/vnd.api+json")
    expect(response.json).toMatchObject({
      data: {
        type: "queries",
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        attributes: {
          fields: [{ name: "first_name", type: "string" }, { name: "last_name", type: "string" }],
          rows: [["Ann", "Archer"], ["Kid", "Archer"]],
          has_more: true,
          last_key: `${demo.id}-${kid.personId}`,
          total_count: 9,
          duration: expect.any(Number),
          meta: {}
        }
      },
      meta: {}
    })
  })

  it("returns every detail field, in its wire type, with custom_fields expanded", async () => {
    const names = [...clientsCatalog.detail.keys(), "custom_fields"]
    const response = await query({ fields: names, filter: ["eq", "person_id", ann.personId] })
    const fields = response.json.data.attributes.fields
    expect(fields.map((f: { name: string }) => f.name)).toEqual([...clientsCatalog.detail.keys(), `custom_field_${shirt.id}`])
    expect(fields.at(-1)).toEqual({ name: `custom_field_${shirt.id}`, type: "string", label: "Shirt size" })
    for (const field of fields.slice(0, -1)) expect(field.type).toBe(clientsCatalog.detail.get(field.name)!.type)

    const [row] = rowsOf(response)
    const today = todayIn("America/Los_Angeles")
    expect(row).toEqual({
      business_id: demo.id,
      business_name: "Demo Studio",
      business_subdomain: "demo",
      franchise_id: null,
      currency_code: "USD",
      key: `${demo.id}-${ann.personId}`,
      account_claim_date: "2024-05-01",
      account_credit_amount: 0,
      account_manager_emails: null,
      account_manager_names: null,
      account_manager_phones: null,
      address: null,
      age: Number(today.slice(0, 4)) - 1990 - (today.slice(5) < "06-15" ? 1 : 0),
      also_staff: "f",
      birthdate: "1990-06-15",
      client_since_date: "2023-01-10",
      completed_visits: 0,
      current_plan_revenue_category: null,
      current_plan_types: "membership",
      current_plans: "Unlimited",
      days_since_last_visit: null,
      days_until_birthday: expect.any(Number),
      dependent_names: "Kid Archer",
      email: "ann@example.test",
      first_name: "Ann",
      first_visit_date: null,
      full_name: "Ann Archer",
      future_visits: 0,
      guardian_email: null,
      guardian_name: null,
      has_membership: "t",
      has_payment_on_file: "f",
      has_plan_on_hold: "f",
      has_signed_waiver: "f",
      home_location_name: "Downtown",
      is_schedulable: "t",
      last_email_bounced: "f",
      last_invoice_amount: null,
      last_invoice_date: null,
      last_invoice_id: null,
      last_invoice_unpaid: "f",
      last_membership_end_date: null,
      last_name: "Archer",
      last_signed_waiver_name: null,
      last_site_access_date: null,
      last_visit_date: null,
      last_visit_id: null,
      last_visit_service: null,
      middle_name: "Q",
      net_paid_amount: 0,
      next_pass_plan_end_date: null,
      person_id: ann.personId,
      person_state: "active",
      phone: "555-0100",
      primary_staff_name: null,
      revenue_amount: 0,
      source_name: "unknown",
      staff_member_who_added: null,
      tenure: daysBetween("2023-01-10", today),
      tenure_group: expect.stringMatching(new RegExp(`^(${TENURE_GROUPS.join("|")})$`)),
      unpaid_visits: 0,
      [`custom_field_${shirt.id}`]: null
    })
    expect(row!.days_until_birthday).toBeGreaterThanOrEqual(0)
    expect(row!.days_until_birthday).toBeLessThanOrEqual(365)

    const [kidRow] = rowsOf(await query({ fields: ["account_manager_names", "account_manager_emails", "guardian_name", "guardian_email", "also_staff"], filter: ["eq", "person_id", kid.personId] }))
    expect(kidRow).toEqual({
      account_manager_names: "Ann Archer",
      account_manager_emails: "ann@example.test",
      guardian_name: "Ann Archer",
      guardian_email: "ann@example.test",
      also_staff: "f"
    })
  })

  it("groups by every grouping, group_label first and typed like the grouping", async () => {
    for (const [name, grouping] of clientsCatalog.groupings) {
      const response = await query({ fields: ["total_count"], group: name })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.fields, name).toEqual([
        { name: "group_label", type: grouping.type },
        { name: "total_count", type: "integer" }
      ])
      const total = (response.json.data.attributes.rows as Array<[unknown, number]>).reduce((sum, row) => sum + row[1], 0)
      expect(total, name).toBe(9)
    }
    expect(rowsOf(await query({ fields: ["total_count"], group: "person_state" }))).toEqual([
      { group_label: "active", total_count: 7 },
      { group_label: "deleted", total_count: 1 },
      { group_label: "hidden", total_count: 1 }
    ])
    expect(rowsOf(await query({ fields: ["total_count"], group: "client_since_year_start_date", filter: ["eq", "person_id", ann.personId] })))
      .toEqual([{ group_label: "2023-01-01", total_count: 1 }])
  })

  it("returns every summary field", async () => {
    const names = [...clientsCatalog.summary.keys()]
    const response = await query({ fields: names, group: "business_id" })
    expect(response.json.data.attributes.fields.map((f: { name: string }) => f.name)).toEqual(["group_label", ...names])
    expect(rowsOf(response)).toEqual([
      {
        group_label: demo.id,
        business_id_summary: String(demo.id),
        business_subdomain_summary: "demo",
        total_count: 9,
        account_claim_count: 1,
        also_staff_count: 4,
        has_membership_count: 1,
        has_payment_on_file_count: 0,
        has_plan_on_hold_count: 0,
        has_signed_waiver_count: 0,
        is_schedulable_count: 7,
        last_email_bounced_count: 0,
        last_invoice_unpaid_count: 0,
        person_count: 9,
        visited_site_count: 0,
        total_account_credit_amount: 0,
        total_net_paid_amount: 0,
        total_revenue_amount: 0,
        total_completed_visits: 0,
        total_future_visits: 0,
        total_unpaid_visits: 0
      }
    ])
  })

  it("sorts by every detail field and every summary field, both ways", async () => {
    let descending = false
    for (const name of clientsCatalog.detail.keys()) {
      descending = !descending
      const response = await query({ fields: ["key"], sort: [`${name}${descending ? "-" : "+"}`], page: { limit: 3 } })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
    }
    for (const name of clientsCatalog.summary.keys()) {
      descending = !descending
      const response = await query({ fields: ["total_count"], group: "person_state", sort: [`${name}${descending ? "-" : "+"}`] })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
    }
    const byName = rowsOf(await query({ fields: ["first_name"], sort: ["first_name-"], page: { limit: 3 } }))
    expect(byName.map((r) => r.first_name)).toEqual(["primary", "owner", "manager"])
    const byCount = rowsOf(await query({ fields: ["total_count"], group: "person_state", sort: ["total_count-", "group_label+"] }))
    expect(byCount.map((r) => r.group_label)).toEqual(["active", "deleted", "hidden"])
  })

  it("filters with every operation and combinator", async () => {
    const firstNames = async (filter: unknown) =>
      rowsOf(await query({ fields: ["first_name"], filter, sort: ["first_name+"] })).map((r) => r.first_name)
    expect(await firstNames(["eq", "last_name", "archer"])).toEqual(["Ann", "Kid"])
    expect(await firstNames(["neq", "person_state", "active"])).toEqual(["Bob", "Cy"])
    expect(await firstNames(["and", [["ne", "last_name", "staff"], ["eq", "is_schedulable", "t"]]])).toEqual(["Ann", "Cli", "Kid"])
    expect(await firstNames(["or", [["starts", "first_name", "a"], ["ends", "email", "KID@EXAMPLE.TEST"]]])).toEqual(["Ann", "Kid"])
    expect(await firstNames(["and", [["contains", "full_name", "RCH"], ["wo", "first_name", "n"]]])).toEqual(["Kid"])
    expect(await firstNames(["nemp", "birthdate"])).toEqual(["Ann"])
    expect(await firstNames(["and", [["emp", "middle_name"], ["eq", "last_name", "Archer"]]])).toEqual(["Kid"])
    expect(await firstNames(["btw", "client_since_date", ["2023-01-01", "2023-12-31"]])).toEqual(["Ann"])
    expect(await firstNames(["btw", "client_since_date", "2023-01-01", "2023-12-31"])).toEqual(["Ann"])
    expect(await firstNames(["and", [["gt", "age", 1], ["lt", "age", 200]]])).toEqual(["Ann"])
    expect(await firstNames(["eq", "has_membership", true])).toEqual(["Ann"])
    expect(await firstNames(["eq", "first_name", "' OR '1'='1"])).toEqual([])
  })

  it("pages through detail and summary rows with starting_after", async () => {
    const all = rowsOf(await query({ fields: ["key"], sort: ["last_name+"], page: { limit: 500 } })).map((r) => r.key)
    const seen: Array<unknown> = []
    let after: string | undefined
    for (;;) {
      const response = await query({ fields: ["key"], sort: ["last_name+"], page: after ? { limit: 3, starting_after: after } : { limit: 3 } })
      seen.push(...rowsOf(response).map((r) => r.key))
      if (!response.json.data.attributes.has_more) break
      after = response.json.data.attributes.last_key
    }
    expect(seen).toEqual(all)

    const first = await query({ fields: ["total_count"], group: "person_state", page: { limit: 1 } })
    expect(first.json.data.attributes).toMatchObject({ rows: [["active", 7]], has_more: true, last_key: "v:active" })
    const next = await query({ fields: ["total_count"], group: "person_state", page: { limit: 5, starting_after: "v:active" } })
    expect(next.json.data.attributes).toMatchObject({ rows: [["deleted", 1], ["hidden", 1]], has_more: false, last_key: "v:hidden" })
  })

  it("accepts application/json as well as JSON:API's media type", async () => {
    const body = { data: { type: "queries", attributes: { fields: ["key"], page: { limit: 1 } } } }
    for (const contentType of ["application/json", "application/vnd.api+json", "application/vnd.api+json; charset=utf-8"]) {
      const response = await server.request("POST", PATH("clients"), { token: tokens.owner!, body, headers: { "content-type": contentType } })
      expect(response.status, contentType).toBe(200)
    }
  })
})

describe("malformed queries", () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ["unknown field", { fields: ["nope"] }, /Unknown field "nope" for clients/],
    ["unknown group", { fields: ["total_count"], group: "nope" }, /Unknown group "nope"/],
    ["unknown sort", { fields: ["key"], sort: ["nope-"] }, /Cannot sort by "nope"/],
    ["unknown operation", { fields: ["key"], filter: ["like", "email", "x"] }, /unknown filter operation "like"/],
    ["unknown filter field", { fields: ["key"], filter: ["eq", "nope", "x"] }, /unknown field "nope"/],
    ["detail field with group", { fields: ["first_name"], group: "person_state" }, /detail field/],
    ["summary field without group", { fields: ["total_count"] }, /summary field/],
    ["eq with one argument", { fields: ["key"], filter: ["eq", "email"] }, /takes a field name and a value/],
    ["btw with one value", { fields: ["key"], filter: ["btw", "age", 1] }, /btw takes/],
    ["emp with a value", { fields: ["key"], filter: ["emp", "email", "x"] }, /takes a field name/],
    ["and without a list", { fields: ["key"], filter: ["and", ["eq", "age", 1]] }, /takes one list of filters/],
    ["a value of the wrong type", { fields: ["key"], filter: ["gt", "age", "old"] }, /not a valid integer value/],
    ["an object as value", { fields: ["key"], filter: ["eq", "email", { $gt: "" }] }, /takes a field name and a value/],
    ["injection in a field name", { fields: ["key) UNION SELECT 1 --"] }, /Unknown field/],
    ["injection in a group", { fields: ["total_count"], group: "person_state; DROP TABLE clients" }, /Unknown group/],
    ["injection in a sort", { fields: ["key"], sort: ["key; DROP TABLE clients"] }, /Invalid sort/],
    ["injection in a filter field", { fields: ["key"], filter: ["eq", "1=1 OR email", "x"] }, /unknown field/],
    ["limit over 500", { fields: ["key"], page: { limit: 501 } }, /page.limit must be between 1 and 500/],
    ["limit 0", { fields: ["key"], page: { limit: 0 } }, /page.limit/],
    ["limit not a number", { fields: ["key"], page: { limit: "many" } }, /limit must be an integer/],
    ["starting_after not a key", { fields: ["key"], page: { starting_after: "not-a-key" } }, /not a key of this query/],
    ["starting_after too long", { fields: ["key"], page: { starting_after: "k".repeat(300) } }, /at most 255 characters/],
    ["starting_after not a string", { fields: ["key"], page: { starting_after: 7 } }, /starting_after/],
    ["fields missing", { sort: ["key+"] }, /fields can't be blank/],
    ["fields not a list", { fields: "key" }, /fields must be a list/],
    ["filter not a list", { fields: ["key"], filter: "email = 'x'" }, /filter/],
    ["sort not a list", { fields: ["key"], sort: "key+" }, /sort/],
    ["custom field of another business", { fields: ["custom_field_999999"] }, /Unknown field/]
  ]
  for (const [name, attributes, message] of cases) {
    it(`answer 400 naming the problem: ${name}`, async () => {
      const response = await query(attributes)
      expect(response.status, response.text).toBe(400)
      expect(response.json.errors.join(" | ")).toMatch(message)
    })
  }

  it("answer 400 to bodies that are not a query document", async () => {
    const raw = (body: string) => server.request("POST", PATH("clients"), { token: tokens.owner!, body, headers: { "content-type": "application/vnd.api+json" } })
    expect((await raw("{nope")).json).toEqual({ errors: ["The request body is not valid JSON"] })
    expect((await raw("[]")).status).toBe(400)
    expect((await raw(JSON.stringify({ fields: ["key"] }))).json.errors[0]).toMatch(/wrapped in "data"/)
    expect((await raw(JSON.stringify({ data: { type: "people", attributes: { fields: ["key"] } } }))).status).toBe(400)
  })

  it("translate problems per X-FD-Locale", async () => {
    const response = await query({ fields: ["nope"] }, { headers: { "x-fd-locale": "de" } })
    expect(response.json).toEqual({ errors: ['Unbekanntes Feld "nope" für clients'] })
  })
})

describe("access", () => {
  it("needs a staff token of this business", async () => {
    const none = await server.request("POST", PATH("clients"), { body: { data: { type: "queries", attributes: { fields: ["key"] } } } })
    expect(none.status).toBe(401)
    expect(none.json.error).toBeDefined()
    expect((await query({ fields: ["key"] }, { token: tokens.client! })).status).toBe(403)
    expect((await query({ fields: ["key"] }, { host: `elsewhere.${TEST_BASE_DOMAIN}` })).status).toBe(401)
    expect((await query({ fields: ["key"] }, { host: TEST_BASE_DOMAIN })).status).toBe(404)
  })

  it("lets owners in by default and other staff members only with a grant", async () => {
    expect((await query({ fields: ["key"] }, { token: tokens.primary! })).status).toBe(200)
    const manager = await query({ fields: ["key"] }, { token: tokens.manager! })
    expect(manager.status).toBe(403)
    expect(manager.json.errors[0]).toMatch(/owners and to staff members an owner has granted access/)
    expect((await query({ fields: ["key"] }, { token: tokens.granted! })).status).toBe(200)
  })

  it("scopes rows to the business, and a franchise holding's to its franchisees too", async () => {
    const businessIds = async (host: string, token: string) =>
      rowsOf(await query({ fields: ["total_count"], group: "business_subdomain" }, { host: `${host}.${TEST_BASE_DOMAIN}`, token })).map((r) => [
        r.group_label,
        r.total_count
      ])
    expect(await businessIds("demo", tokens.owner!)).toEqual([["demo", 9]])
    expect(await businessIds("holding", tokens.holdingOwner!)).toEqual([["east", 2], ["holding", 1], ["west", 1]])
    expect(await businessIds("east", tokens.eastOwner!)).toEqual([["east", 2]])
    const franchiseIds = rowsOf(
      await query({ fields: ["franchise_id"], group: undefined, sort: ["key+"] }, { host: `holding.${TEST_BASE_DOMAIN}`, token: tokens.holdingOwner! })
    ).map((r) => r.franchise_id)
    expect(new Set(franchiseIds)).toEqual(new Set([holding.id]))
    const custom = await query({ fields: ["custom_fields"] }, { host: `holding.${TEST_BASE_DOMAIN}`, token: tokens.holdingOwner! })
    expect(custom.status).toBe(400)
    expect(custom.json.errors).toEqual(["custom_fields is not supported for a franchise holding"])
    expect(east.id).not.toBe(west.id)
  })

  it("drops a franchisee from its holding's scope as soon as it is unlinked, and takes it back when linked again", async () => {
    const subdomains = async () =>
      rowsOf(await query({ fields: ["total_count"], group: "business_subdomain" }, { host: `holding.${TEST_BASE_DOMAIN}`, token: tokens.holdingOwner! }))
        .map((r) => r.group_label)
    /** The scope is cached for 5 seconds unless a business change empties it: well within that. */
    const eventually = async (expected: Array<string>) => {
      const deadline = Date.now() + 2_000
      let seen = await subdomains()
      while (JSON.stringify(seen) !== JSON.stringify(expected) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        seen = await subdomains()
      }
      expect(seen).toEqual(expected)
    }
    await eventually(["east", "holding", "west"])
    try {
      await server.pool.query("update businesses set franchise_parent_id = null where id = $1", [west.id])
      await eventually(["east", "holding"])
    } finally {
      await server.pool.query("update businesses set franchise_parent_id = $1 where id = $2", [holding.id, west.id])
    }
    await eventually(["east", "holding", "west"])
  })
})

describe("resources", () => {
  it("answer for every resource of the spec, and 404 for unknown ones", async () => {
    for (const resource of REPORT_RESOURCES) {
      const response = await query({ fields: ["key"], page: { limit: 1 } }, { resource })
      expect(response.status, resource).toBe(200)
    }
    const unknown = await query({ fields: ["key"] }, { resource: "nope" })
    expect(unknown.status).toBe(404)
    expect(unknown.json).toEqual({ errors: ['Unknown report resource "nope"'] })
  })
})

describe("rate limit and store availability", () => {
  let limited: TestServer
  const limitedDir = path.resolve(`.data/test/reports-http-limited-${process.pid}`)

  beforeAll(async () => {
    fs.rmSync(limitedDir, { recursive: true, force: true })
    limited = await startTestServerOn(server.databaseUrl, { dataDir: limitedDir, reportRateLimit: 3 })
  })
  afterAll(async () => {
    await limited?.close()
    fs.rmSync(limitedDir, { recursive: true, force: true })
  })

  it("answers 503 and asks the worker for a store when none exists, then counts 60 (here 3) a minute with RateLimit headers", async () => {
    const first = await query({ fields: ["key"] }, { on: limited })
    expect(first.status).toBe(503)
    expect(first.json).toEqual({ errors: ["Reports are being prepared. Try again in a minute."] })
    expect(first.headers["ratelimit-limit"]).toBe("3")
    expect(first.headers["ratelimit-remaining"]).toBe("2")
    const jobs = await server.pool.query(
      `select j.job_queue_id is not null as queued from graphile_worker._private_jobs j
       join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = 'report_sync'`
    )
    expect(jobs.rows).toEqual([{ queued: true }])

    await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(limitedDir, "reports"), mode: "full" })
    const second = await query({ fields: ["key"], page: { limit: 1 } }, { on: limited })
    expect(second.status).toBe(200)
    expect(second.headers["ratelimit-remaining"]).toBe("1")
    const third = await query({ fields: ["nope"] }, { on: limited })
    expect(third.status).toBe(400)
    expect(third.headers["ratelimit-remaining"]).toBe("0")
    const refused = await query({ fields: ["key"] }, { on: limited })
    expect(refused.status).toBe(429)
    expect(refused.json.errors[0]).toMatch(/Rate limit exceeded/)
    expect(refused.headers["ratelimit-limit"]).toBe("3")
    expect(refused.headers["ratelimit-remaining"]).toBe("0")
    expect(Number(refused.headers["ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000)
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0)
    // The Core API's own limits are counted apart.
    expect((await limited.request("GET", "/api/v2/desk/locations", { token: tokens.owner! })).status).toBe(200)
  })
})

describe("clients' address and custom fields", () => {
  it("come from the person's stored address and custom field values, after the incremental sync", async () => {
    // Quotes, a backslash, a tab and line breaks survive the store's JSON.
    const NOTE = 'Left-handed, "strong" \\ grip\tsee\r\nnext line'
    const pool = server.pool
    const notes = await createCustomField(pool, demo.id, { name: "Notes", data_type: "text" })
    const newsletter = await createCustomField(pool, demo.id, { name: "Newsletter", data_type: "boolean" })
    const options = (await pool.query("select id, value from custom_field_options where custom_field_id = $1", [shirt.id])).rows
    const m = Number(options.find((o: { value: string }) => o.value === "M").id)
    const updated = await server.request("PUT", `/api/v2/desk/people/${kid.personId}`, {
      token: tokens.owner!,
      body: {
        person: {
          address: "7 Oak Road, Springfield",
          custom_fields: [{ id: shirt.id, value: m }, { id: notes.id, value: NOTE }, { id: newsletter.id, value: true }]
        }
      }
    })
    expect(updated.status, updated.text).toBe(200)
    expect((await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(dataDir, "reports"), mode: "incremental" })).outcome).toBe("incremental")

    const fields = ["address", `custom_field_${shirt.id}`, `custom_field_${notes.id}`, `custom_field_${newsletter.id}`]
    const [row] = rowsOf(await query({ fields, filter: ["eq", "person_id", kid.personId] }))
    expect(row).toEqual({
      address: "7 Oak Road, Springfield",
      [`custom_field_${shirt.id}`]: "M",
      [`custom_field_${notes.id}`]: NOTE,
      [`custom_field_${newsletter.id}`]: "t"
    })
    // Filters and sorts read the same values; a person without one reads null.
    const filtered = rowsOf(await query({ fields: ["person_id"], filter: ["eq", `custom_field_${shirt.id}`, "M"] }))
    expect(filtered).toEqual([{ person_id: kid.personId }])
    const [annRow] = rowsOf(await query({ fields: [`custom_field_${newsletter.id}`, "address"], filter: ["eq", "person_id", ann.personId] }))
    expect(annRow).toEqual({ [`custom_field_${newsletter.id}`]: null, address: null })
    // The full rebuild (its SQL runs on DuckDB) stores the same values.
    await syncReports({ databaseUrl: server.databaseUrl, dir: path.join(dataDir, "reports"), mode: "full" })
    expect(rowsOf(await query({ fields, filter: ["eq", "person_id", kid.personId] }))).toEqual([row])
  })
})
