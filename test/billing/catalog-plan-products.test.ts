import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createHold, createPlan, createPlanProduct, createRevenueCategory } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService } from "../schedule/fixtures.ts"

/** Plan products in both modes (visibility per caller, filters), revenue categories and sales taxes. */
const clock = makeSettableClock("2026-11-02T18:00:00Z")
let server: TestServer
let businessId: number
const tokens: Record<"staff" | "newcomer" | "member" | "lapsed" | "onHold" | "foreignStaff", string> = {} as never
let ids: Record<"everyone" | "members" | "staffOnly" | "newClients" | "suspended" | "deleted" | "atVenice" | "yogaOnly" | "foreign", number>
let venice: number
let brooklyn: number
let yoga: number
let pilates: number
let category: { id: number; name: string }
let taxId: number
let staffMemberId: number

const request = (method: string, path: string, token?: string) => server.request(method, path, token ? { token } : {})
const names = (response: { json: { plan_products: Array<{ name: string }> } }) => response.json.plan_products.map((p) => p.name).sort()

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const elsewhere = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  const staffPerson = await createPerson(server.pool, businessId, { role: "standard" })
  tokens.staff = await createToken(server.pool, staffPerson.accountId, businessId)
  staffMemberId = Number((await server.pool.query(`select id from staff_members where business_id = $1 and person_id = $2`, [businessId, staffPerson.personId])).rows[0].id)
  tokens.foreignStaff = await createToken(server.pool, (await createPerson(server.pool, elsewhere, { role: "owner" })).accountId, elsewhere)
  venice = (await createLocation(server.pool, businessId, { name: "Venice" })).id
  brooklyn = (await createLocation(server.pool, businessId, { name: "Brooklyn" })).id
  yoga = await createService(server.pool, businessId, { type: "GroupClass", name: "Yoga" })
  pilates = await createService(server.pool, businessId, { type: "GroupClass", name: "Pilates" })
  category = await createRevenueCategory(server.pool, businessId, "Memberships")
  await createRevenueCategory(server.pool, businessId, "Class packs")

  const product = (name: string, fields: Parameters<typeof createPlanProduct>[2] = {}) =>
    createPlanProduct(server.pool, businessId, { name, ...fields }).then((p) => p.id)
  ids = {
    everyone: await product("A Everyone pack", { revenue_category_id: category.id }),
    members: await product("B Members pack", { visibility: "Members" }),
    staffOnly: await product("C Staff pack", { visibility: "Staff" }),
    newClients: await product("D Intro offer", { visibility: "New clients", kind: "single_visit_pass" }),
    suspended: await product("E Suspended pack"),
    deleted: await product("F Deleted pack"),
    atVenice: await product("G Venice membership", { kind: "membership", location_id: venice, limit_period: "month", count: 4 }),
    yogaOnly: await product("H Yoga pack", { service_ids: [yoga] }),
    foreign: (await createPlanProduct(server.pool, elsewhere, { name: "Far pack" })).id
  }
  await server.pool.query(`update plan_products set suspended = true where business_id = $1 and id = $2`, [businessId, ids.suspended])
  await server.pool.query(`update plan_products set deleted_at = now() where business_id = $1 and id = $2`, [businessId, ids.deleted])
  const tax = await server.pool.query(`insert into sales_taxes (business_id, name, tax_rate, inclusive) values ($1, 'NY sales tax', 8.875, false) returning id`, [businessId])
  taxId = Number(tax.rows[0].id)
  await server.pool.query(`insert into sales_taxes (business_id, name, tax_rate, inclusive) values ($1, 'VAT', 20, true)`, [businessId])
  await server.pool.query(`insert into sales_tax_locations (business_id, sales_tax_id, location_id, tax_rate) values ($1, $2, $3, 4.5), ($1, $2, $4, null)`, [businessId, taxId, brooklyn, venice])
  await server.pool.query(`insert into plan_product_sales_taxes (business_id, plan_product_id, sales_tax_id) values ($1, $2, $3)`, [businessId, ids.everyone, taxId])
  await server.pool.query(`update plan_products set staff_specific_pricing = true where business_id = $1 and id = $2`, [businessId, ids.everyone])
  await server.pool.query(`insert into plan_product_staff_prices (business_id, plan_product_id, staff_member_id, price_cents) values ($1, $2, $3, 7500)`, [businessId, ids.everyone, staffMemberId])

  const client = async () => {
    const person = await createPerson(server.pool, businessId)
    return { ...person, token: await createToken(server.pool, person.accountId, businessId) }
  }
  const newcomer = await client()
  tokens.newcomer = newcomer.token
  const member = await client()
  tokens.member = member.token
  await createPlan(server.pool, businessId, ids.atVenice, [member.personId], { start_date: "2026-10-01", consider_member: true })
  const lapsed = await client()
  tokens.lapsed = lapsed.token
  await createPlan(server.pool, businessId, ids.everyone, [lapsed.personId], { start_date: "2026-01-01", end_date: "2026-06-30" })
  const onHold = await client()
  tokens.onHold = onHold.token
  const held = await createPlan(server.pool, businessId, ids.atVenice, [onHold.personId], { start_date: "2026-10-01", consider_member: true })
  await createHold(server.pool, businessId, held.id, "2026-11-01", "2026-11-30")
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("client mode", () => {
  it("shows each caller what they may buy: Everyone; Members to members; New clients to people who never held a plan; never Staff", async () => {
    const everyoneFor = ["A Everyone pack", "G Venice membership", "H Yoga pack"]
    const anonymous = await request("GET", "/api/v2/front/plan_products?client_id=test-app")
    expect(anonymous.status, anonymous.text).toBe(200)
    expect(names(anonymous)).toEqual(everyoneFor)
    expect(anonymous.headers["cache-control"]).toBe("private, no-store")
    expect(names(await request("GET", "/api/v2/front/plan_products", tokens.newcomer))).toEqual([...everyoneFor, "D Intro offer"].sort())
    expect(names(await request("GET", "/api/v2/front/plan_products", tokens.member))).toEqual([...everyoneFor, "B Members pack"].sort())
    expect(names(await request("GET", "/api/v2/front/plan_products", tokens.lapsed))).toEqual(everyoneFor)
    // A member on hold is not a member (the plan rules' memberOn).
    expect(names(await request("GET", "/api/v2/front/plan_products", tokens.onHold))).toEqual(everyoneFor)
    expect((await request("GET", "/api/v2/front/plan_products")).status).toBe(401)
  })

  it("answers the record shape, and 404 for what the caller may not see", async () => {
    const one = await request("GET", `/api/v2/front/plan_products/${ids.everyone}?client_id=test-app`)
    expect(one.status).toBe(200)
    expect(one.json.plan_products[0]).toEqual({
      id: ids.everyone,
      name: "A Everyone pack",
      type: "Pack",
      description: null,
      description_long: null,
      price_cents: 5000,
      price: "$50.00",
      visibility: "Everyone",
      count: 5,
      limit_period: null,
      commitment_length: 3,
      commitment_unit: "month",
      invoice_interval_count: null,
      invoice_interval_unit: null,
      stop_renewing_after_commitment: false,
      cancellation_fee_cents: null,
      signup_fee_cents: null,
      rollover_limit: null,
      consider_member: false,
      location_id: null,
      revenue_category: { id: category.id, name: "Memberships" },
      sales_taxes: [{ id: taxId, name: "NY sales tax", tax_rate: 8.875, inclusive: false }],
      services: [],
      staff_specific_pricing: true,
      staff_prices: [{ staff_member_id: staffMemberId, price_cents: 7500, price: "$75.00" }],
      terms: null,
      terms_acceptance_required: false,
      terms_acceptance_type: "checkbox",
      terms_acceptance_at_checkout: false,
      send_expiration_notifications: true,
      created_at: expect.any(String),
      updated_at: expect.any(String)
    })
    expect((await request("GET", `/api/v2/front/plan_products/${ids.newClients}`, tokens.newcomer)).json.plan_products[0].type).toBe("SingleVisitPass")
    for (const id of [ids.members, ids.staffOnly, ids.suspended, ids.deleted, ids.foreign, 999999]) {
      const hidden = await request("GET", `/api/v2/front/plan_products/${id}`, tokens.newcomer)
      expect(hidden.status, String(id)).toBe(404)
      expect(hidden.json.errors).toEqual([`Plan product ${id} not found`])
    }
    expect((await request("GET", `/api/v2/front/plan_products/${ids.members}`, tokens.member)).status).toBe(200)
  })
})

describe("staff mode", () => {
  it("lists everything not deleted, suspended included, with `suspended`; paginated", async () => {
    const all = await request("GET", "/api/v2/desk/plan_products", tokens.staff)
    expect(all.status).toBe(200)
    expect(names(all)).toEqual(["A Everyone pack", "B Members pack", "C Staff pack", "D Intro offer", "E Suspended pack", "G Venice membership", "H Yoga pack"])
    expect(all.json.total_count).toBe(7)
    expect(all.json.plan_products.find((p: { id: number }) => p.id === ids.suspended).suspended).toBe(true)
    const membership = await request("GET", `/api/v2/desk/plan_products/${ids.atVenice}`, tokens.staff)
    expect(membership.json.plan_products[0]).toMatchObject({ type: "Membership", limit_period: "month", count: 4, invoice_interval_unit: "monthly", consider_member: true, location_id: venice, suspended: false })
    const page = await request("GET", "/api/v2/desk/plan_products?per_page=3&page=2", tokens.staff)
    expect(page.json.plan_products).toHaveLength(3)
    expect(page.json.next).toContain("page=3")
    expect(page.json.prev).toContain("page=1")
  })

  it("filters by location_ids and service_ids (no location or no services match everything)", async () => {
    const atBrooklyn = names(await request("GET", `/api/v2/desk/plan_products?location_ids=${brooklyn}`, tokens.staff))
    expect(atBrooklyn).not.toContain("G Venice membership")
    expect(atBrooklyn).toContain("A Everyone pack")
    expect(names(await request("GET", `/api/v2/desk/plan_products?location_ids=${brooklyn},${venice}`, tokens.staff))).toContain("G Venice membership")
    const forPilates = names(await request("GET", `/api/v2/desk/plan_products?service_ids=${pilates}`, tokens.staff))
    expect(forPilates).not.toContain("H Yoga pack")
    expect(forPilates).toContain("A Everyone pack")
    expect(names(await request("GET", `/api/v2/desk/plan_products?service_ids=${yoga}`, tokens.staff))).toContain("H Yoga pack")
    const front = names(await request("GET", `/api/v2/front/plan_products?client_id=test-app&location_ids=${brooklyn}&service_ids=${pilates}`))
    expect(front).toEqual(["A Everyone pack"])
    const bad = await request("GET", "/api/v2/desk/plan_products?location_ids=1,x", tokens.staff)
    expect(bad.status).toBe(400)
    expect(bad.json.errors[0]).toContain("location_ids")
  })

  it("is not found for deleted products and other businesses' ids; needs a staff token", async () => {
    expect((await request("GET", `/api/v2/desk/plan_products/${ids.deleted}`, tokens.staff)).status).toBe(404)
    expect((await request("GET", `/api/v2/desk/plan_products/${ids.foreign}`, tokens.staff)).status).toBe(404)
    const foreign = await server.request("GET", `/api/v2/desk/plan_products/${ids.everyone}`, { token: tokens.foreignStaff, host: "elsewhere.studio.test" })
    expect(foreign.status).toBe(404)
    expect((await request("GET", "/api/v2/desk/plan_products", tokens.member)).status).toBe(403)
  })
})

describe("revenue categories and sales taxes", () => {
  it("lists revenue categories by name and answers `:id` as an object under the root key", async () => {
    const list = await request("GET", "/api/v2/desk/revenue_categories", tokens.staff)
    expect(list.status).toBe(200)
    expect(list.json).toEqual({ revenue_categories: [{ id: expect.any(Number), name: "Class packs" }, { id: category.id, name: "Memberships" }], total_count: 2 })
    const one = await request("GET", `/api/v2/desk/revenue_categories/${category.id}`, tokens.staff)
    expect(one.json).toEqual({ revenue_categories: { id: category.id, name: "Memberships" } })
    expect((await request("GET", "/api/v2/desk/revenue_categories/999999", tokens.staff)).json.errors).toEqual(["Revenue category 999999 not found"])
    const foreign = await server.request("GET", `/api/v2/desk/revenue_categories/${category.id}`, { token: tokens.foreignStaff, host: "elsewhere.studio.test" })
    expect(foreign.status).toBe(404)
    expect((await request("GET", "/api/v2/desk/revenue_categories", tokens.member)).status).toBe(403)
  })

  it("lists sales taxes; `:id` is an object with the locations and their rates", async () => {
    const list = await request("GET", "/api/v2/desk/sales_taxes.json", tokens.staff)
    expect(list.status).toBe(200)
    expect(list.json).toEqual({
      sales_taxes: [
        { id: taxId, name: "NY sales tax", tax_rate: 8.875, inclusive: false },
        { id: expect.any(Number), name: "VAT", tax_rate: 20, inclusive: true }
      ],
      total_count: 2
    })
    const one = await request("GET", `/api/v2/desk/sales_taxes/${taxId}`, tokens.staff)
    expect(one.json).toEqual({
      sales_taxes: {
        id: taxId,
        name: "NY sales tax",
        tax_rate: 8.875,
        inclusive: false,
        locations: [{ id: brooklyn, name: "Brooklyn", tax_rate: 4.5 }, { id: venice, name: "Venice", tax_rate: 8.875 }]
      }
    })
    expect((await request("GET", "/api/v2/desk/sales_taxes/999999", tokens.staff)).status).toBe(404)
    const foreign = await server.request("GET", `/api/v2/desk/sales_taxes/${taxId}`, { token: tokens.foreignStaff, host: "elsewhere.studio.test" })
    expect(foreign.status).toBe(404)
    expect((await request("GET", "/api/v2/front/sales_taxes", tokens.member)).status).toBe(404)
  })
})
