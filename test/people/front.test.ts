import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApplication, createBusiness, createCustomField, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { createDependent, optionIds, setBooleanValue, setTextValue } from "./fixtures.ts"

let server: TestServer
let business: { id: number; subdomain: string }
let parent: Awaited<ReturnType<typeof createPerson>>
let parentToken: string
let childId: number
let otherId: number
let otherToken: string
let foreignId: number
let fields: { text: number; hidden: number; select: number }

beforeAll(async () => {
  server = await startTestServer()
  await createApplication(server.pool, "test-app")
  business = await createBusiness(server.pool, { subdomain: "demo" })
  const elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  parent = await createPerson(server.pool, business.id, { first_name: "Ada", last_name: "Lovelace", email: "ada@example.test" })
  parentToken = await createToken(server.pool, parent.accountId, business.id)
  childId = await createDependent(server.pool, business.id, parent.personId, { first_name: "Byron", birthdate: "2015-07-06" })
  const other = await createPerson(server.pool, business.id, { first_name: "Grace", last_name: "Hopper" })
  otherId = other.personId
  otherToken = await createToken(server.pool, other.accountId, business.id)
  foreignId = (await createPerson(server.pool, elsewhere.id)).personId
  fields = {
    text: (await createCustomField(server.pool, business.id, { name: "Emergency contact", data_type: "text", position: 1 })).id,
    hidden: (await createCustomField(server.pool, business.id, { name: "Staff notes flag", data_type: "boolean", hidden: true, position: 2 })).id,
    select: (await createCustomField(server.pool, business.id, { name: "Shirt", data_type: "select", options: ["S", "M"], position: 3 })).id
  }
  await setTextValue(server.pool, business.id, parent.personId, fields.text, "Charles, 555-0100")
  await setBooleanValue(server.pool, business.id, parent.personId, fields.hidden, true)
  const options = await optionIds(server.pool, fields.select)
  await server.pool.query(
    `insert into person_custom_field_values (business_id, person_id, custom_field_id) values ($1, $2, $3)`,
    [business.id, parent.personId, fields.select]
  )
  await server.pool.query(
    `insert into person_custom_field_selections (business_id, person_id, custom_field_id, custom_field_option_id) values ($1, $2, $3, $4)`,
    [business.id, parent.personId, fields.select, options.M]
  )
})
afterAll(async () => server?.close())

describe("GET /api/v2/front/people/me", () => {
  it("return the token's person with the client fields and only the visible custom fields", async () => {
    const response = await server.request("GET", "/api/v2/front/people/me", { token: parentToken })
    expect(response.status).toBe(200)
    const options = await optionIds(server.pool, fields.select)
    expect(response.json).toEqual({
      people: [
        {
          id: parent.personId,
          name: "Ada Lovelace",
          first_name: "Ada",
          middle_name: null,
          last_name: "Lovelace",
          email: "ada@example.test",
          birthdate: null,
          profile_photo: null,
          custom_fields: [
            { id: fields.text, name: "Emergency contact", data_type: "text", value: "Charles, 555-0100", custom_field_option_ids: [] },
            { id: fields.select, name: "Shirt", data_type: "select", value: "M", custom_field_option_ids: [options.M] }
          ],
          // The public documentation's older key, still read by clients.
          person_custom_fields: [
            { id: fields.text, custom_field_id: fields.text, name: "Emergency contact", value: "Charles, 555-0100" },
            { id: fields.select, custom_field_id: fields.select, name: "Shirt", value: "M" }
          ],
          secondary_info_field: "No Membership"
        }
      ]
    })
  })

  it("add the dependents with with_dependents=true (also on the .json path and with access_token)", async () => {
    const response = await server.request("GET", `/api/v2/front/people/me.json?with_dependents=true&access_token=${parentToken}`)
    expect(response.status).toBe(200)
    expect(response.json.people.map((p: { id: number }) => p.id)).toEqual([parent.personId, childId])
    expect(response.json.people[1]).toMatchObject({ name: "Byron Lovelace", birthdate: "2015-07-06", custom_fields: [] })
    const without = await server.request("GET", "/api/v2/front/people/me?with_dependents=false", { token: parentToken })
    expect(without.json.people).toHaveLength(1)
  })

  it("need a token: client_id alone is a 401 with an error message", async () => {
    const response = await server.request("GET", "/api/v2/front/people/me?client_id=test-app")
    expect(response.status).toBe(401)
    expect(response.json).toEqual({ error: "An access token is required" })
    expect((await server.request("GET", "/api/v2/front/people/me")).status).toBe(401)
  })

  it("refuse a token of another business", async () => {
    const response = await server.request("GET", "/api/v2/front/people/me", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: parentToken })
    expect(response.status).toBe(401)
    expect(response.json.error).toBeDefined()
  })

  it("refuse a malformed with_dependents", async () => {
    const response = await server.request("GET", "/api/v2/front/people/me?with_dependents=maybe", { token: parentToken })
    expect(response.status).toBe(400)
    expect(response.json).toEqual({ errors: ["with_dependents must be true or false"] })
  })
})

describe("GET /api/v2/front/people/:id", () => {
  it("return the token's person and their dependent", async () => {
    const self = await server.request("GET", `/api/v2/front/people/${parent.personId}`, { token: parentToken })
    expect(self.json.people[0].id).toBe(parent.personId)
    const child = await server.request("GET", `/api/v2/front/people/${childId}`, { token: parentToken })
    expect(child.status).toBe(200)
    expect(child.json.people).toHaveLength(1)
    expect(child.json.people[0]).toMatchObject({ id: childId, first_name: "Byron" })
    expect(Object.keys(child.json.people[0]).sort()).toEqual(
      ["birthdate", "custom_fields", "email", "first_name", "id", "last_name", "middle_name", "name", "person_custom_fields", "profile_photo", "secondary_info_field"]
    )
    const withDependents = await server.request("GET", `/api/v2/front/people/${parent.personId}?with_dependents=1`, { token: parentToken })
    expect(withDependents.json.people.map((p: { id: number }) => p.id)).toEqual([parent.personId, childId])
  })

  it("do not find anyone else: another client, a provider from the dependent's side, another business's person", async () => {
    const other = await server.request("GET", `/api/v2/front/people/${otherId}`, { token: parentToken })
    expect(other.status).toBe(404)
    expect(other.json).toEqual({ errors: [`Person ${otherId} not found`] })
    expect((await server.request("GET", `/api/v2/front/people/${parent.personId}`, { token: otherToken })).status).toBe(404)
    expect((await server.request("GET", `/api/v2/front/people/${childId}`, { token: otherToken })).status).toBe(404)
    expect((await server.request("GET", `/api/v2/front/people/${foreignId}`, { token: parentToken })).status).toBe(404)
    expect((await server.request("GET", "/api/v2/front/people/999999", { token: parentToken })).status).toBe(404)
  })

  it("translate the not-found message", async () => {
    const response = await server.request("GET", `/api/v2/front/people/${otherId}`, { token: parentToken, headers: { "x-fd-locale": "de" } })
    expect(response.json).toEqual({ errors: [`Person ${otherId} nicht gefunden`] })
  })

  it("refuse a malformed id and an unauthenticated call", async () => {
    expect((await server.request("GET", "/api/v2/front/people/abc", { token: parentToken })).status).toBe(400)
    expect((await server.request("GET", `/api/v2/front/people/${parent.personId}?client_id=test-app`)).status).toBe(401)
  })

  it("do not find a deleted dependent", async () => {
    const gone = await createDependent(server.pool, business.id, parent.personId, { first_name: "Gone" })
    await server.pool.query(`update people set deleted_at = now() where id = $1`, [gone])
    expect((await server.request("GET", `/api/v2/front/people/${gone}`, { token: parentToken })).status).toBe(404)
    const me = await server.request("GET", "/api/v2/front/people/me?with_dependents=true", { token: parentToken })
    expect(me.json.people.map((p: { id: number }) => p.id)).toEqual([parent.personId, childId])
  })
})
