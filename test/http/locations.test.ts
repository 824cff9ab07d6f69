import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

let server: TestServer
let business: { id: number; subdomain: string }
let visible: { id: number }
let hidden: { id: number }
let foreign: { id: number }
let ownerToken: string
let clientToken: string

beforeAll(async () => {
  server = await startTestServer()
  await createApplication(server.pool, "test-app")
  business = await createBusiness(server.pool, { subdomain: "demo" })
  const elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  visible = await createLocation(server.pool, business.id, { name: "Downtown", slug: "downtown", time_zone: "America/Los_Angeles", position: 1 })
  hidden = await createLocation(server.pool, business.id, {
    name: "Staff Annex",
    slug: "annex",
    time_zone: "Europe/Berlin",
    show_in_client_mode: false,
    position: 2
  })
  foreign = await createLocation(server.pool, elsewhere.id, { name: "Foreign" })
  const owner = await createPerson(server.pool, business.id, { role: "standard" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  const client = await createPerson(server.pool, business.id)
  clientToken = await createToken(server.pool, client.accountId, business.id)
})
afterAll(async () => server?.close())

describe("front locations", () => {
  it("list only locations shown in client mode, with the client fields", async () => {
    const response = await server.request("GET", "/api/v2/front/locations?client_id=test-app")
    expect(response.status).toBe(200)
    expect(response.json).toEqual({
      locations: [
        {
          id: visible.id,
          name: "Downtown",
          address: "1 Main St",
          latitude: 37.77,
          longitude: -122.42,
          phone: null,
          description: null,
          timezone_friendly: "Pacific Time",
          timezone: "America/Los_Angeles"
        }
      ],
      total_count: 1
    })
  })

  it("get one location; a hidden or foreign one is not found", async () => {
    const one = await server.request("GET", `/api/v2/front/locations/${visible.id}`, { token: clientToken })
    expect(one.json.locations[0].name).toBe("Downtown")
    expect((await server.request("GET", `/api/v2/front/locations/${hidden.id}?client_id=test-app`)).status).toBe(404)
    const other = await server.request("GET", `/api/v2/front/locations/${foreign.id}?client_id=test-app`)
    expect(other.status).toBe(404)
    expect(other.json).toEqual({ errors: [`Location ${foreign.id} not found`] })
  })

  it("translate the friendly time zone name", async () => {
    const response = await server.request("GET", `/api/v2/front/locations/${visible.id}?client_id=test-app`, {
      headers: { "x-fd-locale": "fr" }
    })
    expect(response.json.locations[0].timezone_friendly).toBe("heure du Pacifique nord-américain")
  })
})

describe("desk locations", () => {
  it("list every location with the staff fields", async () => {
    const response = await server.request("GET", "/api/v2/desk/locations", { token: ownerToken })
    expect(response.json.total_count).toBe(2)
    expect(response.json.locations.map((l: { slug: string }) => l.slug)).toEqual(["downtown", "annex"])
    expect(response.json.locations[1]).toMatchObject({
      id: hidden.id,
      show_in_client_mode: false,
      slug: "annex",
      timezone: "Europe/Berlin",
      timezone_friendly: "Central European Standard Time"
    })
  })

  it("get a hidden location; a foreign one is not found", async () => {
    const response = await server.request("GET", `/api/v2/desk/locations/${hidden.id}`, { token: ownerToken })
    expect(response.json.locations[0].show_in_client_mode).toBe(false)
    expect((await server.request("GET", `/api/v2/desk/locations/${foreign.id}`, { token: ownerToken })).status).toBe(404)
  })

  it("refuse the client mode token and an unauthenticated call", async () => {
    expect((await server.request("GET", "/api/v2/desk/locations", { token: clientToken })).status).toBe(403)
    expect((await server.request("GET", `/api/v2/desk/locations/${visible.id}?client_id=test-app`)).status).toBe(401)
  })

  it("refuse the right token on the wrong tenant", async () => {
    const response = await server.request("GET", "/api/v2/desk/locations", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken })
    expect(response.status).toBe(401)
  })
})
