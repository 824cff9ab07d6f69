import { parseCrontab } from "graphile-worker"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pruneIdempotencyKeys } from "../../src/shared/idempotency.ts"
import { crontab } from "../../workers/crontab.ts"
import { tasks } from "../../workers/runner.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { type Receiver, startReceiver } from "../webhooks/receiver.ts"

/**
 * Packs over HTTP (spec: Pack; compatibility notes: the booking integration's calls): giving a
 * pack from a pack product with the product's defaults, form bodies, each 422 rule with nothing
 * written, tenancy, GET and DELETE (the visits it paid become unpaid), Idempotency-Key, webhooks.
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z") // 2026-11-02 in America/New_York too
let server: TestServer
let receiver: Receiver
let businessId: number
let elsewhereId: number
let staffToken: string
let ownerToken: string
let clientToken: string
let staffMemberId: number
let locationId: number
let alice: number
let bob: number
let foreignPerson: number
let productId: number
let foreignProductId: number

const request = (method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}) =>
  server.request(method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }), headers })

const form = (path: string, body: string, headers: Record<string, string> = {}) =>
  server.request("POST", path, { token: staffToken, headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body })

const planCount = async () => Number((await server.pool.query("select count(*) from plans where business_id = $1", [businessId])).rows[0].count)

const packsPath = (id = productId) => `/api/v2/desk/pack_products/${id}/packs`

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  receiver = await startReceiver()
  await createApplication(server.pool, "test-app")
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  elsewhereId = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  const staff = await createPerson(server.pool, businessId, { role: "standard" })
  staffMemberId = staff.staffMemberId!
  staffToken = await createToken(server.pool, staff.accountId, businessId)
  const owner = await createPerson(server.pool, businessId, { role: "owner" })
  ownerToken = await createToken(server.pool, owner.accountId, businessId)
  const client = await createPerson(server.pool, businessId, { first_name: "Alice" })
  alice = client.personId
  clientToken = await createToken(server.pool, client.accountId, businessId)
  bob = (await createPerson(server.pool, businessId, { first_name: "Bob" })).personId
  foreignPerson = (await createPerson(server.pool, elsewhereId)).personId
  locationId = (await createLocation(server.pool, businessId)).id
  productId = (await createPlanProduct(server.pool, businessId, { kind: "pack", name: "Ten classes", count: 10, price_cents: 12000, commitment_length: 3, commitment_unit: "month" })).id
  foreignProductId = (await createPlanProduct(server.pool, elsewhereId, { kind: "pack" })).id
  await server.pool.query("update businesses set webhooks_enabled = true where id = $1", [businessId])
  for (const topic of ["plan.created", "person_plan.created"]) {
    const response = await server.request("POST", "/api/v3/webhooks", {
      token: ownerToken,
      headers: { "content-type": "application/vnd.api+json" },
      body: JSON.stringify({ data: { type: "webhooks", attributes: { target: receiver.url(`/${topic}`), topic } } })
    })
    expect(response.status, response.text).toBe(201)
  }
}, 120_000)

afterAll(async () => {
  await server?.close()
  await receiver?.close()
})

describe("giving a pack", () => {
  it("copies the product's defaults for one person (JSON body)", async () => {
    const response = await request("POST", packsPath(), staffToken, { pack: { person_ids: [alice] } })
    expect(response.status, response.text).toBe(201)
    const pack = response.json.packs[0]
    expect(pack).toEqual({
      id: expect.any(Number),
      count: 10,
      person_ids: [alice],
      description: null,
      price_cents: 12000,
      price: "$120.00",
      rollover_count: 0,
      pack_product_id: productId,
      start_date: "2026-11-02",
      end_date: "2027-02-02",
      staff_member_id: null,
      location_id: null,
      visits_shared: true,
      created_at: "2026-11-02T10:00:00Z",
      updated_at: "2026-11-02T10:00:00Z"
    })
    const row = (await server.pool.query("select type, name, consider_member, created_by_staff_member_id from plans where id = $1", [pack.id])).rows[0]
    expect(row).toEqual({ type: "Pack", name: "Ten classes", consider_member: false, created_by_staff_member_id: String(staffMemberId) })
    const get = await request("GET", `/api/v2/desk/packs/${pack.id}`, staffToken)
    expect(get.status).toBe(200)
    expect(get.json).toEqual({ packs: [pack] })
    const events = await server.pool.query(
      "select topic, (payload::jsonb -> 'plans' -> 0 ->> 'id')::int as id from webhook_events where business_id = $1 order by id",
      [businessId]
    )
    expect(events.rows).toEqual([{ topic: "plan.created", id: pack.id }, { topic: "person_plan.created", id: pack.id }])
  })

  it("ends a pack at start_date plus the product's expiration by default", async () => {
    const thirtyDays = (await createPlanProduct(server.pool, businessId, { kind: "pack", count: 5, commitment_length: 30, commitment_unit: "day" })).id
    const response = await request("POST", packsPath(thirtyDays), staffToken, { pack: { person_ids: [alice], start_date: "2026-11-27" } })
    expect(response.status, response.text).toBe(201)
    expect(response.json.packs[0]).toMatchObject({ start_date: "2026-11-27", end_date: "2026-12-27" })
    // A month from Jan 31 ends on the last day of February.
    const oneMonth = (await createPlanProduct(server.pool, businessId, { kind: "pack", count: 5, commitment_length: 1, commitment_unit: "month" })).id
    const february = await request("POST", packsPath(oneMonth), staffToken, { pack: { person_ids: [alice], start_date: "2027-01-31" } })
    expect(february.json.packs[0]).toMatchObject({ start_date: "2027-01-31", end_date: "2027-02-28" })
  })

  it("takes the booking integration's form body and every override; several people do not share by default", async () => {
    const response = await form(
      packsPath(),
      `pack[person_ids][]=${bob}&pack[person_ids][]=${alice}&pack[count]=4&pack[price_cents]=0&pack[description]=Gift` +
        `&pack[start_date]=2026-12-01&pack[end_date]=2026-12-31&pack[staff_member_id]=${staffMemberId}&pack[location_id]=${locationId}`
    )
    expect(response.status, response.text).toBe(201)
    expect(response.json.packs[0]).toMatchObject({
      count: 4,
      person_ids: [bob, alice],
      description: "Gift",
      price_cents: 0,
      start_date: "2026-12-01",
      end_date: "2026-12-31",
      staff_member_id: staffMemberId,
      location_id: locationId,
      visits_shared: false
    })
    const primary = await server.pool.query("select person_id::int from plan_people where plan_id = $1 and is_primary", [response.json.packs[0].id])
    expect(primary.rows).toEqual([{ person_id: bob }])
    const shared = await form(packsPath(), `pack[person_ids][]=${alice}&pack[person_ids][]=${bob}&pack[visits_shared]=true`)
    expect(shared.json.packs[0].visits_shared).toBe(true)
  })

  it("creates the terms record for the primary person when the product asks for acceptance", async () => {
    const withTerms = (await createPlanProduct(server.pool, businessId, { kind: "pack", count: 2 })).id
    await server.pool.query(
      "update plan_products set terms = 'No refunds', terms_acceptance_required = true, terms_acceptance_type = 'document' where id = $1",
      [withTerms]
    )
    const response = await request("POST", packsPath(withTerms), staffToken, { pack: { person_ids: [bob, alice] } })
    expect(response.status, response.text).toBe(201)
    const terms = await server.pool.query("select payer_person_id::int, acceptance_type, terms from plan_terms where plan_id = $1", [
      response.json.packs[0].id
    ])
    expect(terms.rows).toEqual([{ payer_person_id: bob, acceptance_type: "document", terms: "No refunds" }])
    const none = await request("POST", packsPath(), staffToken, { pack: { person_ids: [bob] } })
    expect((await server.pool.query("select count(*)::int as n from plan_terms where plan_id = $1", [none.json.packs[0].id])).rows[0].n).toBe(0)
  })

  it("refuses bad input with a message naming each field, and writes nothing", async () => {
    const before = await planCount()
    const cases: Array<[unknown, Array<string>]> = [
      [{}, ["person_ids can't be blank"]],
      [{ person_ids: [] }, ["person_ids can't be blank"]],
      [{ person_ids: [alice, 999999] }, ["person_ids 999999 does not exist"]],
      [{ person_ids: [foreignPerson] }, [`person_ids ${foreignPerson} does not exist`]],
      [{ person_ids: [alice], start_date: "2026-12-10", end_date: "2026-12-01" }, ["end_date must be on or after the start date (2026-12-10)"]],
      [{ person_ids: [alice], count: 0, price_cents: -1 }, ["count must be greater than or equal to 1", "price_cents must be greater than or equal to 0"]],
      [
        { person_ids: [alice], count: 2147483648, price_cents: 2147483648 },
        ["count must be less than or equal to 2147483647", "price_cents must be less than or equal to 2147483647"]
      ],
      [
        { person_ids: [alice], staff_member_id: 999999, location_id: 999999 },
        ["staff_member_id 999999 does not exist", "location_id 999999 does not exist"]
      ],
      [{ person_ids: [alice], start_date: "2026-02-30" }, ["start_date must be a date such as 2015-07-06"]]
    ]
    for (const [pack, errors] of cases) {
      const response = await request("POST", packsPath(), staffToken, { pack })
      expect(response.status, JSON.stringify(pack)).toBe(422)
      expect(response.json.errors).toEqual(errors)
    }
    const malformed = await request("POST", packsPath(), staffToken, { pack: { person_ids: ["seven"] } })
    expect(malformed.status).toBe(400)
    expect(JSON.stringify(malformed.json.errors)).toContain("person_ids")
    expect((await request("POST", packsPath(), staffToken, { pack: { person_ids: [alice], visits_shared: "maybe" } })).status).toBe(400)
    expect(await planCount()).toBe(before)
  })

  it("needs a live pack product of the business, not suspended", async () => {
    const membership = (await createPlanProduct(server.pool, businessId, { kind: "membership" })).id
    const deleted = (await createPlanProduct(server.pool, businessId, { kind: "pack" })).id
    await server.pool.query("update plan_products set deleted_at = now() where id = $1", [deleted])
    for (const id of [999999, foreignProductId, membership, deleted]) {
      const response = await request("POST", packsPath(id), staffToken, { pack: { person_ids: [alice] } })
      expect(response.status, String(id)).toBe(404)
      expect(response.json.errors).toEqual([`Pack product ${id} not found`])
    }
    const suspended = (await createPlanProduct(server.pool, businessId, { kind: "pack" })).id
    await server.pool.query("update plan_products set suspended = true where id = $1", [suspended])
    const refused = await request("POST", packsPath(suspended), staffToken, { pack: { person_ids: [alice] } })
    expect(refused.status).toBe(422)
    expect(refused.json.errors).toEqual([`Pack product ${suspended} is suspended and cannot be sold`])
  })

  it("is staff mode only", async () => {
    expect((await request("POST", packsPath(), clientToken, { pack: { person_ids: [alice] } })).status).toBe(403)
    expect((await request("POST", packsPath(), undefined, { pack: { person_ids: [alice] } })).status).toBe(401)
  })

  it("translates its messages", async () => {
    const response = await request("POST", packsPath(), staffToken, { pack: { person_ids: [] } }, { "x-fd-locale": "de" })
    expect(response.status).toBe(422)
    expect(response.json.errors).toEqual(["person_ids muss ausgefüllt werden"])
  })
})

describe("Idempotency-Key", () => {
  it("answers a repeat with the stored response and writes one pack", async () => {
    const before = await planCount()
    const key = { "idempotency-key": "pack-once-1" }
    const first = await request("POST", packsPath(), staffToken, { pack: { person_ids: [alice], count: 3 } }, key)
    expect(first.status, first.text).toBe(201)
    clock.set("2026-11-02T10:05:00Z")
    // The same request as a form body is the same request.
    const again = await form(packsPath(), `pack[person_ids][]=${alice}&pack[count]=3`, key)
    expect(again.status, again.text).toBe(201)
    expect(again.json).toEqual(first.json)
    expect(await planCount()).toBe(before + 1)
    const other = await request("POST", packsPath(), staffToken, { pack: { person_ids: [alice], count: 4 } }, key)
    expect(other.status).toBe(422)
    expect(other.json.errors).toEqual(["Idempotency-Key has already been used for a different request"])
    // Keys are the caller's own: another staff member's same key is a new request.
    const owner = await request("POST", packsPath(), ownerToken, { pack: { person_ids: [alice], count: 3 } }, key)
    expect(owner.status).toBe(201)
    expect(owner.json.packs[0].id).not.toBe(first.json.packs[0].id)
    expect(await planCount()).toBe(before + 2)
    clock.set("2026-11-02T10:00:00Z")
  })

  it("never makes two packs from concurrent duplicates", async () => {
    const before = await planCount()
    const key = { "idempotency-key": "pack-race" }
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => request("POST", packsPath(), staffToken, { pack: { person_ids: [bob] } }, key))
    )
    for (const response of responses) expect(response.status, response.text).toBe(201)
    expect(new Set(responses.map((response) => response.json.packs[0].id)).size).toBe(1)
    expect(await planCount()).toBe(before + 1)
  })

  it("stores nothing for a refused request, so the fixed request may reuse the key", async () => {
    const key = { "idempotency-key": "pack-fix" }
    expect((await request("POST", packsPath(), staffToken, { pack: { person_ids: [] } }, key)).status).toBe(422)
    expect((await request("POST", packsPath(), staffToken, { pack: { person_ids: [bob] } }, key)).status).toBe(201)
    const long = await request("POST", packsPath(), staffToken, { pack: { person_ids: [bob] } }, { "idempotency-key": "k".repeat(256) })
    expect(long.status).toBe(422)
    expect(long.json.errors).toEqual(["Idempotency-Key must be 1 to 255 characters"])
  })

  it("forgets keys past the retention (the daily prune)", async () => {
    await server.pool.query(
      `insert into idempotency_keys (business_id, scope, key, request_digest, response_status, response_body, created_at)
       values ($1, 'test:prune', 'old-key', 'x', 201, '{}', $2::timestamptz - interval '8 days'),
              ($1, 'test:prune', 'recent-key', 'x', 201, '{}', $2::timestamptz - interval '6 days')`,
      [businessId, clock.now()]
    )
    await server.runtime.runPromise(pruneIdempotencyKeys())
    const left = await server.pool.query("select key from idempotency_keys where scope = 'test:prune' order by key", [])
    expect(left.rows).toEqual([{ key: "recent-key" }])
    expect(parseCrontab(crontab).some((item) => item.task === "prune_idempotency_keys")).toBe(true)
    expect(tasks).toHaveProperty("prune_idempotency_keys")
  })
})

describe("reading and deleting", () => {
  it("GET and DELETE find only packs of the business", async () => {
    const membershipProduct = (await createPlanProduct(server.pool, businessId, { kind: "membership" })).id
    const { rows } = await server.pool.query(
      `insert into plans (business_id, plan_product_id, type, name, price_cents, start_date) values ($1, $2, 'Membership', 'Unlimited', 100, '2026-11-01') returning id`,
      [businessId, membershipProduct]
    )
    const membership = Number(rows[0].id)
    const foreign = (await createPlan(server.pool, elsewhereId, foreignProductId, [foreignPerson])).id
    const own = (await request("POST", packsPath(), staffToken, { pack: { person_ids: [alice] } })).json.packs[0].id
    for (const id of [999999, membership, foreign]) {
      expect((await request("GET", `/api/v2/desk/packs/${id}`, staffToken)).status).toBe(404)
      expect((await request("DELETE", `/api/v2/desk/packs/${id}`, staffToken)).status).toBe(404)
    }
    expect((await request("GET", `/api/v2/desk/packs/${own}`, clientToken)).status).toBe(403)
    expect((await server.pool.query("select count(*)::int as n from plans where id = $1", [foreign])).rows[0].n).toBe(1)
  })

  it("DELETE leaves the visits it paid unpaid, in one go", async () => {
    const pack = (await request("POST", packsPath(), staffToken, { pack: { person_ids: [alice] } })).json.packs[0]
    const visit = await server.pool.query(
      `with s as (insert into services (business_id, type, name, duration_in_minutes) values ($1, 'GroupClass', 'Paid class', 60) returning id),
            e as (insert into events (business_id, service_id, name, frequency, start_date, start_time, end_time)
                  select $1, s.id, 'Class', 'once', '2026-11-03', '09:00', '10:00' from s returning id, service_id),
            o as (insert into event_occurrences (business_id, event_id, scheduled_date, service_id, name, time_zone, start_at, end_at)
                  select $1, e.id, '2026-11-03', e.service_id, 'Class', 'UTC', '2026-11-03 09:00Z', '2026-11-03 10:00Z' from e returning id)
       insert into visits (business_id, event_occurrence_id, person_id, state) select $1, o.id, $2, 'reserved' from o returning id`,
      [businessId, alice]
    )
    const visitId = Number(visit.rows[0].id)
    const punch = await server.pool.query(
      `insert into punches (business_id, visit_id, plan_id, person_id, visit_date) values ($1, $2, $3, $4, '2026-11-03') returning id`,
      [businessId, visitId, pack.id, alice]
    )
    await server.pool.query("update visits set punch_id = $2, paid_for_by = 'Ten classes' where id = $1", [visitId, punch.rows[0].id])
    const deleted = await request("DELETE", `/api/v2/desk/packs/${pack.id}`, staffToken)
    expect(deleted.status, deleted.text).toBe(204)
    expect((await server.pool.query("select punch_id, paid_for_by from visits where id = $1", [visitId])).rows[0]).toEqual({ punch_id: null, paid_for_by: null })
    expect((await server.pool.query("select count(*)::int as n from punches where plan_id = $1", [pack.id])).rows[0].n).toBe(0)
    expect((await request("GET", `/api/v2/desk/packs/${pack.id}`, staffToken)).status).toBe(404)
    expect((await request("DELETE", `/api/v2/desk/packs/${pack.id}`, staffToken)).status).toBe(404)
  })
})
