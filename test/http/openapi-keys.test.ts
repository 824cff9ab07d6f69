import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type TestServer, startTestServer } from "../support/server.ts"

/** The keys public API clients read (compatibility notes) are documented, with their descriptions. */
let server: TestServer
let schemas: Record<string, { properties?: Record<string, { description?: string }> }>
let document: string

beforeAll(async () => {
  server = await startTestServer()
  const response = await server.request("GET", "/api/openapi.json")
  expect(response.status).toBe(200)
  schemas = response.json.components.schemas
  document = response.text
})
afterAll(async () => server?.close())

const propertiesOf = (name: string) => Object.keys(schemas[name]?.properties ?? {})

describe("GET /api/openapi.json", () => {
  it("documents the public documentation's record keys", () => {
    expect(propertiesOf("ServiceDesk")).toEqual(expect.arrayContaining([
      "anonymous_staff", "snap_duration_in_minutes", "setup_duration_in_minutes", "cleanup_duration_in_minutes",
      "visitors_can_view", "clients_can_view", "members_can_view", "show_capacity_to_clients", "show_rooms_to_clients",
      "hidden_at", "allow_tips", "no_merchandise_price", "supports_single_payer", "pricing"
    ]))
    expect(propertiesOf("ServicePricing")).toEqual(expect.arrayContaining(["number_of_free_visits", "single_visit"]))
    expect(propertiesOf("Price")).toEqual(["currency_iso", "price_cents", "price_string"])
    expect(propertiesOf("PersonFront")).toContain("secondary_info_field")
    expect(propertiesOf("PersonDesk")).toEqual(expect.arrayContaining(["secondary_info_field", "membership"]))
    expect(propertiesOf("EventOccurrenceDesk")).toContain("updating")
    expect(propertiesOf("ClientRegistrationSettings")).toEqual(["custom_field_context_type", "client_managers", "non_client_managers", "dependents"])
    expect(propertiesOf("ClientProfileSettings")).toEqual(["custom_field_context_type", "visibility"])
    expect(propertiesOf("StaffRegistrationSettings")).toEqual(["custom_field_context_type", "staff_registration"])
    expect(propertiesOf("VisitSummary")).toEqual(expect.arrayContaining(["person_id", "first_visited_at", "last_visited_at", "services_visited_at"]))
    expect(schemas["ServiceDesk"]?.properties?.["anonymous_staff"]?.description).toBeTruthy()
  })

  it("documents the summary's root key and the lenient timestamps", () => {
    expect(document).toContain("\"summaries\"")
    expect(document).not.toContain("visit_summaries")
    expect(document).toContain("without an offset, in the business's time zone")
  })
})

describe("GET /api/docs", () => {
  it("serves the API reference page: the bundled Scalar script with the OpenAPI document inlined", async () => {
    const page = await server.request("GET", "/api/docs")
    expect(page.status).toBe(200)
    expect(String(page.headers["content-type"])).toContain("text/html")
    expect(page.text).toContain("window.Scalar.createApiReference")
    expect(page.text).toContain('"/api/v2/desk/locations"')
    expect(page.text).not.toContain("cdn.jsdelivr.net/npm/@scalar/api-reference@")
    expect((await server.request("GET", "/api/docs")).text).toBe(page.text)
  })
})
