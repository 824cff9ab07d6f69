import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApplication, createBusiness, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { createCategory, createService, setStaffHidden } from "./fixtures.ts"
import { makeMember } from "../billing/punches-fixtures.ts"

let server: TestServer
let business: { id: number }
let ownerToken: string
let clientToken: string
let memberToken: string
let ids: Record<"yoga" | "members" | "staffOnly" | "hidden" | "private" | "foreign", number>
let staff: Record<"owner" | "ines" | "sam" | "demoted" | "foreign", number>
let yogaCategory: number

beforeAll(async () => {
  server = await startTestServer()
  await createApplication(server.pool, "test-app")
  business = await createBusiness(server.pool, { subdomain: "demo" })
  const elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
  const owner = await createPerson(server.pool, business.id, { first_name: "Olivia", last_name: "Owner", role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, business.id)
  const ines = await createPerson(server.pool, business.id, { first_name: "Ines", last_name: "Alvarez", role: "standard", email: "ines@example.test" })
  const sam = await createPerson(server.pool, business.id, { first_name: "Sam", last_name: "Okoye", role: "standard" })
  const demoted = await createPerson(server.pool, business.id, { first_name: "Dee", last_name: "Former", role: "demoted" })
  const foreignStaff = await createPerson(server.pool, elsewhere.id, { role: "owner" })
  await setStaffHidden(server.pool, business.id, sam.staffMemberId!)
  await server.pool.query(`update staff_members set bio = 'Vinyasa since 2012' where id = $1`, [ines.staffMemberId])
  staff = { owner: owner.staffMemberId!, ines: ines.staffMemberId!, sam: sam.staffMemberId!, demoted: demoted.staffMemberId!, foreign: foreignStaff.staffMemberId! }
  const client = await createPerson(server.pool, business.id)
  clientToken = await createToken(server.pool, client.accountId, business.id)
  const member = await createPerson(server.pool, business.id)
  await server.pool.query(`update people set is_member = true where id = $1`, [member.personId])
  await makeMember(server.pool, business.id, member.personId, { count: 0 })
  memberToken = await createToken(server.pool, member.accountId, business.id)

  yogaCategory = await createCategory(server.pool, business.id, "Yoga", 1)
  const privateCategory = await createCategory(server.pool, business.id, "Private", 2)
  ids = {
    yoga: await createService(server.pool, business.id, { type: "GroupClass", name: "Vinyasa", position: 1, category_id: yogaCategory, drop_in_price_cents: 2500 }),
    members: await createService(server.pool, business.id, { type: "GroupClass", name: "Members Flow", position: 2, visibility: "Members" }),
    staffOnly: await createService(server.pool, business.id, { type: "GroupClass", name: "Staff Practice", position: 3, visibility: "Staff" }),
    hidden: await createService(server.pool, business.id, { type: "Course", name: "Old Course", position: 4, hidden: true }),
    private: await createService(server.pool, business.id, {
      type: "Appointment",
      name: "Private Session",
      position: 5,
      category_id: privateCategory,
      staff_member_ids: [staff.ines, staff.sam]
    }),
    foreign: await createService(server.pool, elsewhere.id, { type: "GroupClass", name: "Elsewhere Yoga" })
  }
})
afterAll(async () => server?.close())

const names = (services: ReadonlyArray<{ name: string }>) => services.map((s) => s.name)

describe("GET /api/v2/front/services", () => {
  it("lists what anybody may see, with categories, and is not cacheable across people", async () => {
    const response = await server.request("GET", "/api/v2/front/services?client_id=test-app")
    expect(response.status).toBe(200)
    expect(names(response.json.services)).toEqual(["Vinyasa", "Private Session"])
    expect(response.json.total_count).toBe(2)
    expect(response.json.categories.map((c: { name: string }) => c.name)).toEqual(["Yoga", "Private"])
    expect(response.headers["cache-control"]).toBe("private, no-store")
    expect(response.headers["vary"]).toContain("Authorization")
    expect(response.json.services[0]).toEqual({
      id: ids.yoga,
      name: "Vinyasa",
      type: "GroupClass",
      position: 1,
      description: null,
      description_short: null,
      instructions: null,
      duration_in_minutes: 60,
      enrollment_window_blackout_minutes: 0,
      free_cancellation_window_in_hours: 0,
      clients_can_book: true,
      members_can_book: true,
      require_cc: false,
      require_plan: false,
      maximum_clients: 10,
      calendar_color: null,
      category_id: yogaCategory,
      category_name: "Yoga",
      pricing: {
        drop_in_price_cents: 2500,
        drop_in_price: "$25.00",
        number_of_free_visits: 0,
        single_visit: { base_price: { currency_iso: "USD", price_cents: 2500, price_string: "$25.00" }, taxes: [] }
      }
    })
  })

  it("adds members-only services for a member's token", async () => {
    expect(names((await server.request("GET", "/api/v2/front/services", { token: clientToken })).json.services)).toEqual([
      "Vinyasa",
      "Private Session"
    ])
    expect(names((await server.request("GET", "/api/v2/front/services", { token: memberToken })).json.services)).toEqual([
      "Vinyasa",
      "Members Flow",
      "Private Session"
    ])
  })

  it("needs a client_id without a token", async () => {
    const response = await server.request("GET", "/api/v2/front/services")
    expect(response.status).toBe(401)
    expect(response.json).toEqual({ error: "The application client id (client_id) is required for unauthenticated requests" })
  })
})

describe("GET /api/v2/front/services/:id", () => {
  it("answers an object under the root key, as the public API does", async () => {
    const response = await server.request("GET", `/api/v2/front/services/${ids.yoga}.json?client_id=test-app`)
    expect(response.status).toBe(200)
    expect(response.json.services).toMatchObject({ id: ids.yoga, name: "Vinyasa", type: "GroupClass" })
    expect(Array.isArray(response.json.services)).toBe(false)
    expect(response.json.services.visibility).toBeUndefined()
  })

  it("does not find what the caller may not see, nor another business's service", async () => {
    for (const id of [ids.members, ids.staffOnly, ids.hidden, ids.foreign]) {
      const response = await server.request("GET", `/api/v2/front/services/${id}?client_id=test-app`)
      expect(response.status, String(id)).toBe(404)
      expect(response.json).toEqual({ errors: [`Service ${id} not found`] })
    }
    expect((await server.request("GET", `/api/v2/front/services/${ids.members}`, { token: memberToken })).status).toBe(200)
    const german = await server.request("GET", `/api/v2/front/services/${ids.hidden}?client_id=test-app`, { headers: { "x-fd-locale": "de" } })
    expect(german.json).toEqual({ errors: [`Angebot ${ids.hidden} nicht gefunden`] })
  })

  it("refuses a token of another business", async () => {
    const response = await server.request("GET", `/api/v2/front/services/${ids.yoga}`, { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: clientToken })
    expect(response.status).toBe(401)
  })
})

describe("GET /api/v2/desk/services", () => {
  it("lists every service but hidden ones, with the staff fields", async () => {
    const response = await server.request("GET", "/api/v2/desk/services", { token: ownerToken })
    expect(response.status).toBe(200)
    expect(names(response.json.services)).toEqual(["Vinyasa", "Members Flow", "Staff Practice", "Private Session"])
    const appointment = response.json.services.find((s: { id: number }) => s.id === ids.private)
    expect(appointment).toMatchObject({
      visibility: "Everyone",
      hidden: false,
      hidden_at: null,
      online_booking: true,
      client_purchase_disabled: false,
      booking_window_days: null,
      maximum_clients: 1,
      staff_member_ids: [staff.ines, staff.sam].sort((a, b) => a - b)
    })
  })

  it("carries the public API's display settings, pricing included (stored, derived from visibility, or the behaviour's constants)", async () => {
    await server.pool.query(
      `update services set anonymous_staff = true, show_capacity_to_clients = false, allow_tips = true, number_of_free_visits = 2
       where business_id = $1 and id = $2`,
      [business.id, ids.private]
    )
    const response = await server.request("GET", "/api/v2/desk/services", { token: ownerToken, headers: { "x-fd-locale": "de" } })
    const byId = (id: number) => response.json.services.find((s: { id: number }) => s.id === id)
    expect(byId(ids.private)).toMatchObject({
      anonymous_staff: true,
      snap_duration_in_minutes: 15,
      setup_duration_in_minutes: 0,
      cleanup_duration_in_minutes: 0,
      visitors_can_view: true,
      clients_can_view: true,
      members_can_view: true,
      show_capacity_to_clients: false,
      show_rooms_to_clients: false,
      hidden_at: null,
      allow_tips: true,
      no_merchandise_price: null,
      supports_single_payer: false,
      pricing: { number_of_free_visits: 2, single_visit: null }
    })
    expect(byId(ids.yoga)).toMatchObject({
      anonymous_staff: false,
      snap_duration_in_minutes: null,
      show_capacity_to_clients: null,
      pricing: {
        number_of_free_visits: 0,
        single_visit: { base_price: { currency_iso: "USD", price_cents: 2500, price_string: "25,00\u00a0$" }, taxes: [] }
      }
    })
    expect(byId(ids.members)).toMatchObject({ visitors_can_view: false, clients_can_view: false, members_can_view: true })
    expect(byId(ids.staffOnly)).toMatchObject({ visitors_can_view: false, clients_can_view: false, members_can_view: false })
    const front = await server.request("GET", `/api/v2/front/services/${ids.private}?client_id=test-app`)
    expect(front.json.services.pricing).toEqual({ drop_in_price_cents: null, drop_in_price: null, number_of_free_visits: 2, single_visit: null })
    expect(front.json.services).not.toHaveProperty("anonymous_staff")
  })

  it("adds hidden services with include_hidden=true, and refuses a value that is not a boolean", async () => {
    const response = await server.request("GET", "/api/v2/desk/services?include_hidden=true", { token: ownerToken })
    expect(names(response.json.services)).toContain("Old Course")
    expect(response.json.services.find((s: { id: number }) => s.id === ids.hidden)).toMatchObject({ hidden: true, hidden_at: "2026-01-01T00:00:00Z" })
    const bad = await server.request("GET", "/api/v2/desk/services?include_hidden=maybe", { token: ownerToken })
    expect(bad.status).toBe(400)
    expect(bad.json).toEqual({ errors: ["include_hidden must be true or false"] })
  })

  it("gets one service, hidden ones too, but not another business's", async () => {
    const hidden = await server.request("GET", `/api/v2/desk/services/${ids.hidden}`, { token: ownerToken })
    expect(hidden.status).toBe(200)
    expect(hidden.json.services).toHaveLength(1)
    expect((await server.request("GET", `/api/v2/desk/services/${ids.foreign}`, { token: ownerToken })).status).toBe(404)
  })

  it("refuses client mode callers and other tenants", async () => {
    expect((await server.request("GET", "/api/v2/desk/services", { token: clientToken })).status).toBe(403)
    expect((await server.request("GET", `/api/v2/desk/services/${ids.yoga}?client_id=test-app`)).status).toBe(401)
    expect((await server.request("GET", "/api/v2/desk/services", { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken })).status).toBe(401)
  })
})

describe("GET /api/v2/front/staff_members", () => {
  it("lists staff without a token, leaving out hidden and demoted staff, with the client fields", async () => {
    const response = await server.request("GET", "/api/v2/front/staff_members?client_id=test-app")
    expect(response.status).toBe(200)
    expect(response.json.staff_members.map((s: { name: string }) => s.name)).toEqual(["Ines Alvarez", "Olivia Owner"])
    expect(response.json.staff_members[0]).toEqual({
      id: staff.ines,
      name: "Ines Alvarez",
      first_name: "Ines",
      middle_name: null,
      last_name: "Alvarez",
      bio: "Vinyasa since 2012",
      profile_photo: null
    })
    expect(response.json.total_count).toBe(2)
  })

  it("needs a client_id without a token", async () => {
    const response = await server.request("GET", "/api/v2/front/staff_members")
    expect(response.status).toBe(401)
    expect(response.json.error).toContain("client_id")
  })

  it("gets one; a hidden staff member is a 404, as is another business's", async () => {
    expect((await server.request("GET", `/api/v2/front/staff_members/${staff.ines}?client_id=test-app`)).json.staff_members[0].name).toBe(
      "Ines Alvarez"
    )
    const hidden = await server.request("GET", `/api/v2/front/staff_members/${staff.sam}?client_id=test-app`)
    expect(hidden.status).toBe(404)
    expect(hidden.json).toEqual({ errors: [`Staff member ${staff.sam} not found`] })
    expect((await server.request("GET", `/api/v2/front/staff_members/${staff.foreign}`, { token: clientToken })).status).toBe(404)
  })
})

describe("GET /api/v2/desk/staff_members", () => {
  it("lists every staff member with the staff fields", async () => {
    const response = await server.request("GET", "/api/v2/desk/staff_members", { token: ownerToken })
    expect(response.json.staff_members.map((s: { name: string }) => s.name)).toEqual(["Dee Former", "Ines Alvarez", "Olivia Owner", "Sam Okoye"])
    expect(response.json.staff_members[1]).toMatchObject({ email: "ines@example.test", role: "standard", phone: null, hidden_in_client_mode: false })
  })

  it("answers me and :id (hidden ones too); another business's is a 404", async () => {
    const me = await server.request("GET", "/api/v2/desk/staff_members/me", { token: ownerToken })
    expect(me.json.staff_members[0]).toMatchObject({ id: staff.owner, role: "owner" })
    const hidden = await server.request("GET", `/api/v2/desk/staff_members/${staff.sam}`, { token: ownerToken })
    expect(hidden.json.staff_members[0]).toMatchObject({ id: staff.sam, hidden_in_client_mode: true })
    expect((await server.request("GET", `/api/v2/desk/staff_members/${staff.foreign}`, { token: ownerToken })).status).toBe(404)
  })

  it("refuses client mode callers and other tenants", async () => {
    expect((await server.request("GET", "/api/v2/desk/staff_members/me", { token: clientToken })).status).toBe(403)
    expect((await server.request("GET", "/api/v2/desk/staff_members?client_id=test-app")).status).toBe(401)
    expect(
      (await server.request("GET", `/api/v2/desk/staff_members/${staff.ines}`, { host: `elsewhere.${TEST_BASE_DOMAIN}`, token: ownerToken })).status
    ).toBe(401)
  })
})
