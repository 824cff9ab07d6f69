import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createPlan } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService } from "../schedule/fixtures.ts"

/** Pack products over HTTP: the booking integration's form body, defaults, partial updates, soft delete, policy, tenancy. */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
let server: TestServer
let businessId: number
const tokens: Record<"owner" | "manager" | "standard" | "client" | "foreignOwner", string> = {} as never
let clientPersonId: number
let locationId: number
let foreignLocationId: number
let yogaId: number
let pilatesId: number
let foreignServiceId: number

const request = (method: string, path: string, token?: string, body?: unknown) =>
  server.request(method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) })

const form = (method: string, path: string, token: string, body: string) =>
  server.request(method, path, { token, headers: { "content-type": "application/x-www-form-urlencoded" }, body })

const minimal = { product: { name: "10 classes", price_cents: 12000, visibility: "Everyone" }, count: 10, commitment_length: 6, commitment_unit: "month" }

const create = async (packProduct: Record<string, unknown> = minimal, token = tokens.manager) => {
  const response = await request("POST", "/api/v2/desk/pack_products", token, { pack_product: packProduct })
  expect(response.status, response.text).toBe(201)
  return response.json.pack_products[0]
}

const rowCount = async () => Number((await server.pool.query(`select count(*) from plan_products where business_id = $1`, [businessId])).rows[0].count)

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const elsewhere = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  const staff = async (business: number, role: "owner" | "manager" | "standard") =>
    createToken(server.pool, (await createPerson(server.pool, business, { role })).accountId, business)
  tokens.owner = await staff(businessId, "owner")
  tokens.manager = await staff(businessId, "manager")
  tokens.standard = await staff(businessId, "standard")
  tokens.foreignOwner = await staff(elsewhere, "owner")
  const client = await createPerson(server.pool, businessId)
  clientPersonId = client.personId
  tokens.client = await createToken(server.pool, client.accountId, businessId)
  locationId = (await createLocation(server.pool, businessId, { name: "Venice" })).id
  foreignLocationId = (await createLocation(server.pool, elsewhere)).id
  yogaId = await createService(server.pool, businessId, { type: "GroupClass", name: "Yoga" })
  pilatesId = await createService(server.pool, businessId, { type: "GroupClass", name: "Pilates" })
  foreignServiceId = await createService(server.pool, elsewhere, { type: "GroupClass", name: "Far" })
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("create", () => {
  it("takes the booking integration's form body (every value a string, lower-case visibility, no service_ids)", async () => {
    const response = await form(
      "POST",
      "/api/v2/desk/pack_products",
      tokens.owner,
      [
        "pack_product[product][name]=Intro+pass",
        "pack_product[product][price_cents]=500",
        "pack_product[product][visibility]=staff",
        "pack_product[product][description]=One+class",
        "pack_product[count]=1",
        "pack_product[send_expiration_notifications]=false",
        "pack_product[commitment_length]=12",
        "pack_product[commitment_unit]=month"
      ].join("&")
    )
    expect(response.status, response.text).toBe(201)
    const created = response.json.pack_products[0]
    expect(created).toEqual({
      id: expect.any(Number),
      count: 1,
      commitment_length: 12,
      commitment_unit: "month",
      location_id: null,
      consider_member: false,
      terms: null,
      terms_acceptance_required: false,
      terms_acceptance_type: "checkbox",
      terms_acceptance_at_checkout: false,
      send_expiration_notifications: false,
      created_at: "2026-11-02T10:00:00Z",
      updated_at: "2026-11-02T10:00:00Z",
      product: {
        id: created.id,
        name: "Intro pass",
        description: "One class",
        description_long: null,
        price_cents: 500,
        price: "$5.00",
        visibility: "Staff",
        suspended: false,
        created_at: "2026-11-02T10:00:00Z",
        updated_at: "2026-11-02T10:00:00Z"
      },
      services: []
    })
    const stored = await server.pool.query(`select kind, deleted_at from plan_products where business_id = $1 and id = $2`, [businessId, created.id])
    expect(stored.rows[0]).toEqual({ kind: "pack", deleted_at: null })
    const read = await request("GET", `/api/v2/desk/pack_products/${created.id}`, tokens.owner)
    expect(read.status).toBe(200)
    expect(read.json.pack_products).toEqual([created])
  })

  it("stores every attribute, with services (unknown and other businesses' ids ignored), top-level product fields, `product` winning", async () => {
    const created = await create({
      name: "Top-level name",
      price_cents: 1,
      description_long: "Long text",
      suspended: true,
      product: { name: "Five pack", price_cents: 6000, visibility: "members" },
      count: 5,
      commitment_length: 2,
      commitment_unit: "week",
      location_id: locationId,
      consider_member: true,
      terms: "No refunds",
      terms_acceptance_required: true,
      terms_acceptance_type: "document",
      terms_acceptance_at_checkout: true,
      service_ids: [yogaId, pilatesId, 999999, foreignServiceId]
    })
    expect(created).toMatchObject({
      count: 5,
      commitment_length: 2,
      commitment_unit: "week",
      location_id: locationId,
      consider_member: true,
      terms: "No refunds",
      terms_acceptance_required: true,
      terms_acceptance_type: "document",
      terms_acceptance_at_checkout: true,
      send_expiration_notifications: true,
      product: { name: "Five pack", price_cents: 6000, visibility: "Members", description_long: "Long text", suspended: true },
      services: [{ id: pilatesId, name: "Pilates" }, { id: yogaId, name: "Yoga" }]
    })
  })

  it("refuses missing and invalid fields with a 422 naming each, writing nothing", async () => {
    const before = await rowCount()
    const missing = await request("POST", "/api/v2/desk/pack_products", tokens.manager, { pack_product: {} })
    expect(missing.status).toBe(422)
    expect(missing.json.errors).toEqual([
      "name can't be blank",
      "price_cents can't be blank",
      "count can't be blank",
      "commitment_length can't be blank",
      "visibility can't be blank",
      "commitment_unit can't be blank"
    ])
    const invalid = await request("POST", "/api/v2/desk/pack_products", tokens.manager, {
      pack_product: { ...minimal, product: { ...minimal.product, visibility: "Friends", price_cents: -1 }, count: 0, commitment_unit: "year", terms_acceptance_type: "fax" }
    })
    expect(invalid.status).toBe(422)
    expect(invalid.json.errors).toEqual([
      "price_cents must be greater than or equal to 0",
      "count must be greater than or equal to 1",
      "visibility must be one of: Everyone, Members, Staff, New clients",
      "commitment_unit must be one of: day, week, month",
      "terms_acceptance_type must be one of: checkbox, document"
    ])
    for (const location of [999999, foreignLocationId]) {
      const unknown = await request("POST", "/api/v2/desk/pack_products", tokens.manager, { pack_product: { ...minimal, location_id: location } })
      expect(unknown.status).toBe(422)
      expect(unknown.json.errors).toEqual([`location_id ${location} does not exist`])
    }
    const huge = await request("POST", "/api/v2/desk/pack_products", tokens.manager, { pack_product: { ...minimal, count: 99999999999 } })
    expect(huge.status).toBe(422)
    const badType = await request("POST", "/api/v2/desk/pack_products", tokens.manager, { pack_product: { ...minimal, count: "ten" } })
    expect(badType.status).toBe(400)
    expect(badType.json.errors).toEqual(["count must be an integer"])
    const noRoot = await request("POST", "/api/v2/desk/pack_products", tokens.manager, minimal)
    expect(noRoot.status).toBe(400)
    expect(await rowCount()).toBe(before)
  })

  it("translates messages per X-FD-Locale", async () => {
    const response = await server.request("POST", "/api/v2/desk/pack_products", {
      token: tokens.manager,
      headers: { "x-fd-locale": "de" },
      body: { pack_product: { ...minimal, location_id: 999999 } }
    })
    expect(response.status).toBe(422)
    expect(response.json.errors[0]).not.toBe("location_id 999999 does not exist")
    const missing = await server.request("GET", "/api/v2/desk/pack_products/999999", { token: tokens.manager, headers: { "x-fd-locale": "de" } })
    expect(missing.json.errors).toEqual(["Paketprodukt 999999 nicht gefunden"])
  })
})

describe("update", () => {
  it("is partial: absent fields unchanged, service_ids [] removes all, null or absent leaves them", async () => {
    const created = await create({ ...minimal, service_ids: [yogaId], terms: "Be kind" })
    const path = `/api/v2/desk/pack_products/${created.id}`
    clock.set("2026-11-03T09:00:00Z")
    try {
      const renamed = await request("PUT", path, tokens.manager, { pack_product: { product: { name: "Ten classes" }, count: 12 } })
      expect(renamed.status, renamed.text).toBe(200)
      expect(renamed.json.pack_products[0]).toMatchObject({
        count: 12,
        terms: "Be kind",
        commitment_length: 6,
        updated_at: "2026-11-03T09:00:00Z",
        created_at: "2026-11-02T10:00:00Z",
        product: { name: "Ten classes", price_cents: 12000, visibility: "Everyone" },
        services: [{ id: yogaId, name: "Yoga" }]
      })
      const keep = await request("PUT", path, tokens.manager, { pack_product: { service_ids: null, suspended: "true" } })
      expect(keep.json.pack_products[0]).toMatchObject({ services: [{ id: yogaId, name: "Yoga" }], product: { suspended: true } })
      const swap = await form("PUT", path, tokens.manager, `pack_product[service_ids][]=${pilatesId}&pack_product[product][visibility]=new+clients`)
      expect(swap.status, swap.text).toBe(200)
      expect(swap.json.pack_products[0]).toMatchObject({ services: [{ id: pilatesId, name: "Pilates" }], product: { visibility: "New clients" } })
      const cleared = await request("PUT", path, tokens.manager, { pack_product: { service_ids: [] } })
      expect(cleared.json.pack_products[0].services).toEqual([])
      const refused = await request("PUT", path, tokens.manager, { pack_product: { product: { name: " " }, location_id: 999999 } })
      expect(refused.status).toBe(422)
      expect(refused.json.errors).toEqual(["name can't be blank", "location_id 999999 does not exist"])
      expect((await request("GET", path, tokens.manager)).json.pack_products[0].product.name).toBe("Ten classes")
    } finally {
      clock.set("2026-11-02T10:00:00Z")
    }
  })
})

describe("delete", () => {
  it("removes the product from the catalog (404 afterwards) while packs sold from it keep it", async () => {
    const created = await create()
    const plan = await createPlan(server.pool, businessId, created.id, [clientPersonId])
    const path = `/api/v2/desk/pack_products/${created.id}`
    expect((await request("DELETE", path, tokens.standard)).status).toBe(403)
    const deleted = await request("DELETE", path, tokens.owner)
    expect(deleted.status, deleted.text).toBe(204)
    expect((await request("GET", path, tokens.owner)).status).toBe(404)
    expect((await request("PUT", path, tokens.owner, { pack_product: { count: 3 } })).status).toBe(404)
    expect((await request("DELETE", path, tokens.owner)).status).toBe(404)
    expect((await request("GET", "/api/v2/desk/pack_products?per_page=100", tokens.owner)).json.pack_products.map((p: { id: number }) => p.id)).not.toContain(created.id)
    expect((await request("GET", `/api/v2/desk/plan_products/${created.id}`, tokens.owner)).status).toBe(404)
    const kept = await server.pool.query(`select p.id, pp.deleted_at is not null as deleted from plans p join plan_products pp on pp.business_id = p.business_id and pp.id = p.plan_product_id where p.business_id = $1 and p.id = $2`, [businessId, plan.id])
    expect(kept.rows).toEqual([{ id: String(plan.id), deleted: true }])
  })

  it("deletes once when the request arrives ten times at once: one 204, the repeats 404 as after it", async () => {
    const path = `/api/v2/desk/pack_products/${(await create()).id}`
    const answers = await Promise.all(Array.from({ length: 10 }, () => request("DELETE", path, tokens.owner)))
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, ...Array(9).fill(404)])
  })
})

describe("list and access", () => {
  it("lists pack products only (not other kinds), paginated with absolute links", async () => {
    await server.pool.query(
      `insert into plan_products (business_id, kind, name, price_cents, invoice_interval_count, invoice_interval_unit) values ($1, 'membership', 'Unlimited', 9900, 1, 'monthly')`,
      [businessId]
    )
    const all = await request("GET", "/api/v2/desk/pack_products?per_page=100", tokens.manager)
    expect(all.status).toBe(200)
    expect(all.json.pack_products.every((p: { count: number }) => p.count >= 1)).toBe(true)
    expect(all.json.pack_products.map((p: { product: { name: string } }) => p.product.name)).not.toContain("Unlimited")
    const total = all.json.total_count
    expect(total).toBeGreaterThanOrEqual(3)
    const first = await request("GET", "/api/v2/desk/pack_products?per_page=2", tokens.manager)
    expect(first.json.pack_products).toHaveLength(2)
    expect(first.json.total_count).toBe(total)
    expect(first.json.next).toMatch(/^http:\/\/demo\.studio\.test(:\d+)?\/api\/v2\/desk\/pack_products\?per_page=2&page=2$/)
    expect(first.json.prev).toBeUndefined()
  })

  it("is for owners and managers only; front mode has no such path; other businesses' ids are not found", async () => {
    const created = await create()
    for (const [method, path, body] of [
      ["GET", "/api/v2/desk/pack_products", undefined],
      ["GET", `/api/v2/desk/pack_products/${created.id}`, undefined],
      ["POST", "/api/v2/desk/pack_products", { pack_product: minimal }],
      ["PUT", `/api/v2/desk/pack_products/${created.id}`, { pack_product: { count: 2 } }]
    ] as const) {
      const refused = await request(method, path, tokens.standard, body)
      expect(refused.status, `${method} ${path}`).toBe(403)
      expect(refused.json.errors).toEqual(["Only a manager or an owner of the business may do this"])
      expect((await request(method, path, tokens.client, body)).status).toBe(403)
      expect((await request(method, path, undefined, body)).status).toBe(401)
    }
    expect((await request("GET", "/api/v2/front/pack_products", tokens.client)).status).toBe(404)
    const foreign = await server.request("GET", `/api/v2/desk/pack_products/${created.id}`, { token: tokens.foreignOwner, host: "elsewhere.studio.test" })
    expect(foreign.status).toBe(404)
    const foreignPut = await server.request("PUT", `/api/v2/desk/pack_products/${created.id}`, {
      token: tokens.foreignOwner,
      host: "elsewhere.studio.test",
      body: { pack_product: { count: 2 } }
    })
    expect(foreignPut.status).toBe(404)
    expect((await request("GET", `/api/v2/desk/pack_products/${created.id}`, tokens.owner)).json.pack_products[0].count).toBe(10)
  })
})
