import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  createApplication,
  createBusiness,
  createCustomField,
  createLocation,
  createPerson,
  createToken
} from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { createDependent, setBooleanValue, setTextValue } from "./fixtures.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"

let server: TestServer
let business: { id: number; subdomain: string }
let owner: Awaited<ReturnType<typeof createPerson>>
let ownerToken: string
let clientToken: string
let client: Awaited<ReturnType<typeof createPerson>>
let foreignId: number
let location: { id: number; name: string }
let hiddenField: number
let visibleField: number
/** The live people of the business, in id order. */
let ids: Array<number>

type Person = { id: number; [key: string]: unknown }
const idsOf = (response: { json: { people: Array<Person> } }) => response.json.people.map((p) => p.id)

beforeAll(async () => {
  server = await startTestServer()
  await createApplication(server.pool, "test-app")
  business = await createBusiness(server.pool, { subdomain: "demo", currency_code: "EUR", time_zone: "Europe/Berlin" })
  const elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  location = await createLocation(server.pool, business.id, { name: "Downtown", slug: "downtown" })
  owner = await createPerson(server.pool, business.id, { role: "owner", first_name: "Olga", last_name: "Owner", email: "olga@studio.test" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  client = await createPerson(server.pool, business.id, { first_name: "Ada", last_name: "Lovelace", email: "ada.lovelace@example.test" })
  clientToken = await createToken(server.pool, client.accountId, business.id)
  foreignId = (await createPerson(server.pool, elsewhere.id)).personId
  ids = [owner.personId, client.personId]
  // 28 more people: more than one page of 25.
  for (let i = 0; i < 28; i++) {
    const person = await createPerson(server.pool, business.id, {
      first_name: `Person${String(i).padStart(2, "0")}`,
      last_name: i % 2 === 0 ? "Even" : "Odd"
    })
    ids.push(person.personId)
  }
  const child = await createDependent(server.pool, business.id, client.personId, { first_name: "Byron" })
  ids.push(child)
  await server.pool.query(
    `update people set phone = '+1 (555) 010-0199', location_id = $2, time_zone = 'America/New_York',
                       created_at = '2020-01-01T00:00:00Z', updated_at = '2024-06-01T00:00:00Z'
     where id = $1`,
    [client.personId, location.id]
  )
  // A member holds a current consider_member plan (src/shared/plan-rules.ts memberOn).
  const membership = await createPlanProduct(server.pool, business.id, { kind: "membership", name: "Gold Membership" })
  await createPlan(server.pool, business.id, membership.id, [client.personId], { start_date: "2020-01-01" })
  await server.pool.query(`update people set updated_at = '2024-06-01T00:00:00Z' where id = $1`, [client.personId])
  await server.pool.query(`update people set created_at = '2019-01-01T00:00:00Z', updated_at = '2019-01-01T00:00:00Z' where id = $1`, [
    owner.personId
  ])
  // Everyone else was created "now"; the owner first, the client second by creation time.
  visibleField = (await createCustomField(server.pool, business.id, { name: "Emergency contact", data_type: "text" })).id
  hiddenField = (await createCustomField(server.pool, business.id, { name: "Owes a towel", data_type: "boolean", hidden: true })).id
  await setTextValue(server.pool, business.id, client.personId, visibleField, "Charles")
  await setBooleanValue(server.pool, business.id, client.personId, hiddenField, true)
  const deleted = await createPerson(server.pool, business.id, { first_name: "Deleted", last_name: "Person" })
  await server.pool.query(`update people set deleted_at = now() where id = $1`, [deleted.personId])
})
afterAll(async () => server?.close())

describe("GET /api/v2/desk/people", () => {
  it("list 25 people a page by id, with total_count and next", async () => {
    const first = await server.request("GET", "/api/v2/desk/people", { token: ownerToken })
    expect(first.status).toBe(200)
    expect(first.json.total_count).toBe(ids.length)
    expect(idsOf(first)).toEqual(ids.slice(0, 25))
    expect(first.json.next).toBe(`http://demo.${TEST_BASE_DOMAIN}/api/v2/desk/people?page=2`)
    expect(first.json.prev).toBeUndefined()
    const second = await server.request("GET", "/api/v2/desk/people?page=2", { token: ownerToken })
    expect(idsOf(second)).toEqual(ids.slice(25))
    expect(second.json.next).toBeUndefined()
    expect(second.json.prev).toBe(`http://demo.${TEST_BASE_DOMAIN}/api/v2/desk/people?page=1`)
    const small = await server.request("GET", "/api/v2/desk/people?per_page=5&page=3", { token: ownerToken })
    expect(idsOf(small)).toEqual(ids.slice(10, 15))
  })

  it("show the staff fields, hidden custom fields included, and no relationships or balances unless asked", async () => {
    const response = await server.request("GET", "/api/v2/desk/people?per_page=2", { token: ownerToken })
    const ada = response.json.people[1]
    expect(ada).toMatchObject({
      id: client.personId,
      name: "Ada Lovelace",
      phone: "+1 (555) 010-0199",
      is_member: true,
      membership: "Gold Membership",
      secondary_info_field: "Gold Membership",
      timezone: "America/New_York",
      hidden_at: null,
      deleted_at: null,
      business_id: business.id,
      location_id: location.id,
      location: { id: location.id, name: "Downtown", slug: "downtown" },
      created_at: "2020-01-01T00:00:00Z",
      updated_at: "2024-06-01T00:00:00Z",
      custom_fields: [
        { id: visibleField, name: "Emergency contact", data_type: "text", value: "Charles", custom_field_option_ids: [] },
        { id: hiddenField, name: "Owes a towel", data_type: "boolean", value: "true", custom_field_option_ids: [] }
      ]
    })
    expect(ada.joined_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    expect(ada).not.toHaveProperty("dependents")
    expect(ada).not.toHaveProperty("account_balance_cents")
    expect(response.json.people[0].timezone).toBe("Europe/Berlin")
  })

  it("add dependents and providers with include_relationships", async () => {
    const response = await server.request("GET", `/api/v2/desk/people?include_relationships=true&per_page=100`, { token: ownerToken })
    const byId = new Map(response.json.people.map((p: Person) => [p.id, p]))
    const child = ids[ids.length - 1]!
    expect(byId.get(client.personId)).toMatchObject({ dependents: [{ id: child, name: "Byron Lovelace" }], providers: [] })
    expect(byId.get(child)).toMatchObject({ dependents: [], providers: [{ id: client.personId, name: "Ada Lovelace" }] })
  })

  it("add balances with include_balances, formatted for the business currency and the locale", async () => {
    const response = await server.request("GET", "/api/v2/desk/people?include_balances=true&per_page=1", { token: ownerToken })
    expect(response.json.people[0]).toMatchObject({ account_balance_cents: 0, account_balance: "€0.00" })
    const german = await server.request("GET", "/api/v2/desk/people?include_balances=1&per_page=1", {
      token: ownerToken,
      headers: { "x-fd-locale": "de" }
    })
    expect(german.json.people[0].account_balance).toBe(new Intl.NumberFormat("de", { style: "currency", currency: "EUR" }).format(0))
  })

  it("filter by created_since, updated_since (offsets with or without a colon) and is_member", async () => {
    const created = await server.request("GET", "/api/v2/desk/people?created_since=2019-06-01T00:00:00-0700&per_page=100", { token: ownerToken })
    expect(created.json.total_count).toBe(ids.length - 1)
    expect(idsOf(created)).not.toContain(owner.personId)
    const updated = await server.request("GET", "/api/v2/desk/people?updated_since=2019-06-01T00:00:00%2B02:00&per_page=100", { token: ownerToken })
    expect(idsOf(updated)).not.toContain(owner.personId)
    expect(idsOf(updated)).toContain(client.personId)
    const members = await server.request("GET", "/api/v2/desk/people?is_member=true", { token: ownerToken })
    expect(idsOf(members)).toEqual([client.personId])
    const others = await server.request("GET", "/api/v2/desk/people?is_member=false&per_page=100", { token: ownerToken })
    expect(others.json.total_count).toBe(ids.length - 1)
  })

  it("sort by created_at, -updated_at, names and several keys; ids break ties", async () => {
    const created = await server.request("GET", "/api/v2/desk/people?sort=created_at&per_page=3", { token: ownerToken })
    expect(idsOf(created)).toEqual([owner.personId, client.personId, ids[2]])
    const updated = await server.request("GET", "/api/v2/desk/people?sort=-updated_at,-id&per_page=100", { token: ownerToken })
    const updatedIds = idsOf(updated)
    expect(updatedIds[updatedIds.length - 1]).toBe(owner.personId)
    expect(updatedIds[updatedIds.length - 2]).toBe(client.personId)
    expect(updatedIds[0]).toBe(ids[ids.length - 1])
    const byId = await server.request("GET", "/api/v2/desk/people?sort=-id&per_page=2", { token: ownerToken })
    expect(idsOf(byId)).toEqual([ids[ids.length - 1], ids[ids.length - 2]])
    const names = await server.request("GET", "/api/v2/desk/people?sort=last_name,-first_name&per_page=2", { token: ownerToken })
    expect(names.json.people.map((p: Person) => `${p.first_name} ${p.last_name}`)).toEqual(["Person26 Even", "Person24 Even"])
    const firstNames = await server.request("GET", "/api/v2/desk/people?sort=first_name&per_page=2", { token: ownerToken })
    expect(firstNames.json.people.map((p: Person) => p.first_name)).toEqual(["Ada", "Byron"])
  })

  it("refuse an unknown sort and malformed filters with a 400 naming the parameter", async () => {
    const sort = await server.request("GET", "/api/v2/desk/people?sort=email", { token: ownerToken })
    expect(sort.status).toBe(400)
    expect(sort.json.errors).toHaveLength(1)
    expect(sort.json.errors[0]).toMatch(/^sort must be one of: id, -id, created_at, -created_at, updated_at/)
    const bad = await server.request("GET", "/api/v2/desk/people?created_since=yesterday&is_member=perhaps&page=0", { token: ownerToken })
    expect(bad.status).toBe(400)
    expect(bad.json.errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^created_since must be an ISO 8601 timestamp/),
        "is_member must be true or false",
        "page must be a positive integer"
      ])
    )
  })

  it("refuse a client token (403), no token (401) and a token of another business (401)", async () => {
    const client = await server.request("GET", "/api/v2/desk/people", { token: clientToken })
    expect(client.status).toBe(403)
    expect(client.json.error).toBeDefined()
    expect((await server.request("GET", "/api/v2/desk/people?client_id=test-app")).status).toBe(401)
    const wrongHost = await server.request("GET", "/api/v2/desk/people", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken })
    expect(wrongHost.status).toBe(401)
  })
})

describe("GET /api/v2/desk/people/:id and /me", () => {
  it("return one person with relationships", async () => {
    const response = await server.request("GET", `/api/v2/desk/people/${client.personId}`, { token: ownerToken })
    expect(response.status).toBe(200)
    expect(response.json.people).toHaveLength(1)
    expect(response.json.people[0]).toMatchObject({
      id: client.personId,
      dependents: [{ id: ids[ids.length - 1], name: "Byron Lovelace" }],
      providers: []
    })
    expect(response.json.people[0].custom_fields).toHaveLength(2)
  })

  it("return the staff member's own person for me", async () => {
    const response = await server.request("GET", "/api/v2/desk/people/me.json", { token: ownerToken })
    expect(response.status).toBe(200)
    expect(response.json.people[0]).toMatchObject({ id: owner.personId, name: "Olga Owner", email: "olga@studio.test" })
  })

  it("find a deleted person with deleted_at set; another business's person and unknown ids are 404", async () => {
    const { rows } = await server.pool.query(`select id from people where first_name = 'Deleted'`)
    const deleted = await server.request("GET", `/api/v2/desk/people/${rows[0].id}`, { token: ownerToken })
    expect(deleted.status).toBe(200)
    expect(deleted.json.people[0].deleted_at).toMatch(/Z$/)
    const foreign = await server.request("GET", `/api/v2/desk/people/${foreignId}`, { token: ownerToken })
    expect(foreign.status).toBe(404)
    expect(foreign.json).toEqual({ errors: [`Person ${foreignId} not found`] })
    expect((await server.request("GET", "/api/v2/desk/people/0", { token: ownerToken })).status).toBe(400)
  })

  it("refuse the wrong mode and tenant", async () => {
    expect((await server.request("GET", `/api/v2/desk/people/${client.personId}`, { token: clientToken })).status).toBe(403)
    expect((await server.request("GET", "/api/v2/desk/people/me", { token: clientToken })).status).toBe(403)
    expect((await server.request("GET", "/api/v2/desk/people/me")).status).toBe(401)
    const wrongHost = await server.request("GET", "/api/v2/desk/people/me", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken })
    expect(wrongHost.status).toBe(401)
  })
})

describe("GET /api/v2/desk/people/search", () => {
  const search = (query: string) => server.request("GET", `/api/v2/desk/people/search?${query}`, { token: ownerToken })

  it("answer the public API's shape: results with a score and the person, and total_count", async () => {
    const response = await search("q=ada")
    expect(response.status).toBe(200)
    expect(Object.keys(response.json).sort()).toEqual(["results", "total_count"])
    expect(response.json.total_count).toBe(1)
    expect(response.json.results).toHaveLength(1)
    expect(typeof response.json.results[0].score).toBe("number")
    expect(response.json.results[0].score).toBeGreaterThan(0)
    expect(response.json.results[0].person).toMatchObject({ id: client.personId, name: "Ada Lovelace", is_member: true })
  })

  it("rank exact names first, match every word and small typos", async () => {
    const full = await search("q=Ada%20Lovelace")
    expect(full.json.results[0].person.id).toBe(client.personId)
    expect(full.json.results[0].score).toBe(2)
    const all = await search("q=lovelace")
    // Ada and her son Byron (a dependent without an account).
    expect(all.json.results.map((r: { person: Person }) => r.person.id).sort()).toEqual([client.personId, ids[ids.length - 1]].sort())
    const typo = await search("q=lovelase&fields=name")
    expect(typo.json.results.map((r: { person: Person }) => r.person.id)).toContain(client.personId)
    const none = await search("q=zzzzzz")
    expect(none.json).toEqual({ results: [], total_count: 0 })
  })

  it("search e-mail addresses; without fields an address also searches names by its local part", async () => {
    const email = await search("q=olga@studio.test")
    expect(email.json.results[0].person.id).toBe(owner.personId)
    expect(email.json.results[0].score).toBe(2)
    // "ada@nowhere.test" is nobody's address, but "ada" is a name.
    const localPart = await search("q=ada@nowhere.test")
    expect(localPart.json.results.map((r: { person: Person }) => r.person.id)).toEqual([client.personId])
    const onlyEmail = await search("q=ada@nowhere.test&fields=email")
    expect(onlyEmail.json.total_count).toBe(0)
    const partial = await search("q=lovelace@nowhere&fields=email")
    expect(partial.json.total_count).toBe(0)
    const contained = await search("q=ada.lovelace&fields=email")
    expect(contained.json.results[0].person.id).toBe(client.personId)
  })

  it("search phones by their digits, complete numbers only", async () => {
    const full = await search("q=1-555-010-0199&fields=phone")
    expect(full.json.results.map((r: { person: Person }) => r.person.id)).toEqual([client.personId])
    const spaced = await search(`q=${encodeURIComponent("+1 555 0100199")}`)
    expect(spaced.json.results.map((r: { person: Person }) => r.person.id)).toEqual([client.personId])
    const partial = await search("q=0100199&fields=phone")
    expect(partial.json.total_count).toBe(0)
    const nameOnly = await search("q=15550100199&fields=name")
    expect(nameOnly.json.total_count).toBe(0)
  })

  it("accept barcodes (nothing has one yet) and paginate", async () => {
    expect((await search("q=123&fields=barcodes")).json).toEqual({ results: [], total_count: 0 })
    const page = await search("q=person&fields=name&per_page=10")
    expect(page.json.total_count).toBe(28)
    expect(page.json.results).toHaveLength(10)
    expect(page.json.next).toContain("page=2")
  })

  it("leave deleted people and other businesses out", async () => {
    expect((await search("q=deleted")).json.total_count).toBe(0)
    const other = await server.request("GET", "/api/v2/desk/people/search?q=ada", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken })
    expect(other.status).toBe(401)
  })

  it("refuse a missing or blank q and unknown fields with a 400", async () => {
    const missing = await search("fields=name")
    expect(missing.status).toBe(400)
    expect(missing.json).toEqual({ errors: ["q can't be blank"] })
    expect((await search("q=%20")).json).toEqual({ errors: ["q can't be blank"] })
    const fields = await search("q=ada&fields=name,shoe_size")
    expect(fields.status).toBe(400)
    expect(fields.json).toEqual({ errors: ["fields must be one of: name, email, phone, barcodes"] })
  })

  it("refuse a client token", async () => {
    expect((await server.request("GET", "/api/v2/desk/people/search?q=ada", { token: clientToken })).status).toBe(403)
  })
})

describe("OpenAPI", () => {
  it("document every people endpoint", async () => {
    const response = await server.request("GET", "/api/openapi.json")
    expect(response.status).toBe(200)
    const paths = response.json.paths as Record<string, Record<string, unknown>>
    expect(Object.keys(paths["/api/v2/desk/people"] ?? {}).sort()).toEqual(["get", "post"])
    expect(Object.keys(paths["/api/v2/desk/people/{id}"] ?? {}).sort()).toEqual(["delete", "get", "put"])
    for (const path of ["/api/v2/desk/people/search", "/api/v2/desk/people/me", "/api/v2/front/people/me", "/api/v2/front/people/{id}"]) {
      expect(paths[path], path).toHaveProperty("get")
    }
  })
})
