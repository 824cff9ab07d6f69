import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApplication, createBusiness, createCustomField, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

let server: TestServer
let holding: { id: number; subdomain: string }
let franchisees: Array<{ id: number; subdomain: string }>
let solo: { id: number; subdomain: string }
let ownerToken: string
let clientToken: string
let soloOwnerToken: string
const host = (subdomain: string) => `${subdomain}.${TEST_BASE_DOMAIN}`

beforeAll(async () => {
  server = await startTestServer()
  await createApplication(server.pool, "test-app")
  holding = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Holding", website: "https://demo.example" })
  franchisees = []
  for (const name of ["Zeta Yoga", "Alpha Yoga", "Mid Yoga"]) {
    franchisees.push(await createBusiness(server.pool, { name, franchise_parent_id: holding.id }))
  }
  solo = await createBusiness(server.pool, { subdomain: "solo", name: "Solo Studio", currency_code: "EUR", default_locale: "de", time_zone: "Europe/Berlin" })
  await server.pool.query(
    `update businesses set brand_colors = $2, logo_url = 'https://cdn.example/logo.png', cover_photo_url = 'https://cdn.example/cover.jpg'
     where id = $1`,
    [holding.id, JSON.stringify({ accent: "#ff0066", brand: "#112233", client_mode_navigation: "#000000", unknown_key: "#fff" })]
  )
  const owner = await createPerson(server.pool, holding.id, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, holding.id)
  const client = await createPerson(server.pool, holding.id)
  clientToken = await createToken(server.pool, client.accountId, holding.id)
  const soloOwner = await createPerson(server.pool, solo.id, { role: "primary_owner" })
  soloOwnerToken = await createToken(server.pool, soloOwner.accountId, solo.id)
  await createCustomField(server.pool, holding.id, { name: "Emergency contact", data_type: "text", position: 2 })
  await createCustomField(server.pool, holding.id, { name: "Heard about us", data_type: "select", multi_select: true, options: ["Friend", "Web"], position: 1 })
  await createCustomField(server.pool, holding.id, { name: "Internal flag", data_type: "boolean", hidden: true, position: 3 })
})
afterAll(async () => server?.close())

describe("GET /api/v2/front/business", () => {
  it("returns the basic details of the host's business", async () => {
    const response = await server.request("GET", "/api/v2/front/business?client_id=test-app", { host: host("solo") })
    expect(response.status).toBe(200)
    expect(response.json).toEqual({
      businesses: [
        {
          id: solo.id,
          name: "Solo Studio",
          subdomain: "solo",
          default_locale: "de",
          currency_code: "EUR",
          website: null,
          email_address: null,
          phone: null,
          time_zone: "Europe/Berlin"
        }
      ]
    })
  })

  it("works with a client token instead of client_id", async () => {
    const response = await server.request("GET", "/api/v2/front/business", { token: clientToken })
    expect(response.json.businesses[0]).not.toHaveProperty("is_franchise")
  })
})

describe("GET /api/v2/desk/business", () => {
  it("adds is_franchise for staff", async () => {
    const holdingView = await server.request("GET", "/api/v2/desk/business", { token: ownerToken })
    expect(holdingView.json.businesses[0]).toMatchObject({ id: holding.id, website: "https://demo.example", is_franchise: true })
    const soloView = await server.request("GET", "/api/v2/desk/business", { host: host("solo"), token: soloOwnerToken })
    expect(soloView.json.businesses[0].is_franchise).toBe(false)
  })

  it("refuses client tokens (wrong mode) and missing tokens", async () => {
    expect((await server.request("GET", "/api/v2/desk/business", { token: clientToken })).status).toBe(403)
    expect((await server.request("GET", "/api/v2/desk/business?client_id=test-app")).status).toBe(401)
  })
})

describe("franchisees", () => {
  it("lists the franchisees of a holding by name, paginated, front and desk", async () => {
    const front = await server.request("GET", "/api/v2/front/business/franchisees?client_id=test-app")
    expect(front.status).toBe(200)
    expect(front.json.franchisees.map((b: { name: string }) => b.name)).toEqual(["Alpha Yoga", "Mid Yoga", "Zeta Yoga"])
    expect(front.json.total_count).toBe(3)
    // The root key is the pluralized resource name (core-api-part1), not `businesses`.
    expect(front.json).not.toHaveProperty("businesses")
    expect(front.json.franchisees[0]).not.toHaveProperty("is_franchise")

    const desk = await server.request("GET", "/api/v2/desk/business/franchisees?per_page=2", { token: ownerToken })
    expect(desk.json.franchisees).toHaveLength(2)
    expect(desk.json.franchisees[0].is_franchise).toBe(true)
    expect(desk.json.next).toContain("page=2")
  })

  it("is empty for a business without franchisees", async () => {
    const response = await server.request("GET", "/api/v2/desk/business/franchisees", { host: host("solo"), token: soloOwnerToken })
    expect(response.json).toEqual({ franchisees: [], total_count: 0 })
  })

  it("never lists another holding's franchisees", async () => {
    const response = await server.request("GET", "/api/v2/front/business/franchisees?client_id=test-app", { host: host("solo") })
    expect(response.json.franchisees).toEqual([])
  })
})

describe("GET /api/v2/front/branding", () => {
  it("is a bare object of colors, logos and cover photo, with client_id and no token", async () => {
    const response = await server.request("GET", "/api/v2/front/branding?client_id=test-app")
    expect(response.status).toBe(200)
    expect(response.json).toEqual({
      colors: {
        accent: "#ff0066",
        brand: "#112233",
        header: null,
        background: null,
        client_mode_accent: null,
        client_mode_brand: null,
        client_mode_header: null,
        client_mode_background: null,
        client_mode_navigation: "#000000"
      },
      logo: {
        x50: "https://cdn.example/logo.png?size=50x50",
        x50_2x: "https://cdn.example/logo.png?size=100x100",
        x75: "https://cdn.example/logo.png?size=75x75",
        x75_2x: "https://cdn.example/logo.png?size=150x150",
        full: "https://cdn.example/logo.png"
      },
      cover_photo: { full: "https://cdn.example/cover.jpg" }
    })
  })

  it("has null images when the business has none", async () => {
    const response = await server.request("GET", "/api/v2/front/branding", { host: host("solo"), token: soloOwnerToken })
    expect(response.json.logo.full).toBeNull()
    expect(response.json.cover_photo.full).toBeNull()
  })

  it("needs client_id without a token, refused like the other token-less front endpoints", async () => {
    const branding = await server.request("GET", "/api/v2/front/branding")
    const staffList = await server.request("GET", "/api/v2/front/staff_members")
    expect(branding.status).toBe(401)
    expect(branding.json).toEqual({ error: "The application client id (client_id) is required for unauthenticated requests" })
    expect(branding.json).toEqual(staffList.json)
    const unknownApp = await server.request("GET", "/api/v2/front/branding?client_id=nope")
    expect(unknownApp.status).toBe(401)
    expect(unknownApp.json).toEqual({ error: "Unknown application client id" })
    const withClientToken = await server.request("GET", "/api/v2/front/branding", { token: clientToken })
    expect(withClientToken.status).toBe(200)
  })

  it("needs a business host", async () => {
    const response = await server.request("GET", "/api/v2/front/branding?client_id=test-app", { host: TEST_BASE_DOMAIN })
    expect(response.status).toBe(404)
    const unknown = await server.request("GET", "/api/v2/front/branding?client_id=test-app", { host: host("ghost") })
    expect(unknown.status).toBe(404)
  })
})

describe("GET /api/v2/desk/custom_fields", () => {
  it("lists every custom field by position, hidden ones included, with options and settings", async () => {
    const response = await server.request("GET", "/api/v2/desk/custom_fields", { token: ownerToken })
    expect(response.status).toBe(200)
    expect(response.json.total_count).toBe(3)
    expect(response.json.custom_fields.map((f: { name: string }) => f.name)).toEqual([
      "Heard about us",
      "Emergency contact",
      "Internal flag"
    ])
    const select = response.json.custom_fields[0]
    expect(select).toMatchObject({ data_type: "select", multi_select: true, why: "We ask because we care" })
    expect(select.custom_field_options.map((o: { value: string }) => o.value)).toEqual(["Friend", "Web"])
    expect(response.json.custom_fields[2].custom_field_settings).toEqual([
      { custom_field_context_type: "ClientRegistrationSettings", client_managers: "hidden", non_client_managers: "hidden", dependents: "hidden" },
      { custom_field_context_type: "ClientProfileSettings", visibility: "staff" },
      { custom_field_context_type: "StaffRegistrationSettings", staff_registration: "optional" }
    ])
    expect(response.json.custom_fields[1].custom_field_settings).toEqual([
      { custom_field_context_type: "ClientRegistrationSettings", client_managers: "optional", non_client_managers: "optional", dependents: "optional" },
      { custom_field_context_type: "ClientProfileSettings", visibility: "everyone" },
      { custom_field_context_type: "StaffRegistrationSettings", staff_registration: "optional" }
    ])
  })

  it("says a field required at client sign-up is required in the client registration context", async () => {
    await server.pool.query("update custom_fields set required = true where business_id = $1 and name = 'Emergency contact'", [holding.id])
    try {
      const response = await server.request("GET", "/api/v2/desk/custom_fields", { token: ownerToken })
      const [registration] = response.json.custom_fields[1].custom_field_settings
      expect(registration).toEqual({
        custom_field_context_type: "ClientRegistrationSettings",
        client_managers: "required",
        non_client_managers: "required",
        dependents: "required"
      })
    } finally {
      await server.pool.query("update custom_fields set required = false where business_id = $1 and name = 'Emergency contact'", [holding.id])
    }
  })

  it("is staff only and per business", async () => {
    expect((await server.request("GET", "/api/v2/desk/custom_fields", { token: clientToken })).status).toBe(403)
    const solo = await server.request("GET", "/api/v2/desk/custom_fields", { host: host("solo"), token: soloOwnerToken })
    expect(solo.json).toEqual({ custom_fields: [], total_count: 0 })
  })

  it("has no client-mode route", async () => {
    const response = await server.request("GET", "/api/v2/front/custom_fields?client_id=test-app")
    expect(response.status).toBe(404)
  })
})
