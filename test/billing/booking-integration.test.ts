import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/**
 * The booking integration's billing calls, as its public example client makes them
 * (compatibility.md, "The booking integration's billing calls"): every call carries
 * `?access_token=`, bodies are JSON or Rails form fields, and a failure is any non-2xx.
 * Sell a drop-in: pack product → one-visit pack → visit → punch with the pack (the visit is
 * paid); cancel: unpunch (unpaid), then the visit and the pack. And the client's own cancel
 * path: visit → punch_id → punch → plan_id → delete the pack, then the visit.
 */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
let server: TestServer
let token: string
const occurrences: Array<number> = []

type Encoding = "json" | "form"

/** Rails-style nested form fields from a nested object, every value a string; arrays as `a[b][]=x`. */
const formEncode = (value: unknown, prefix: string, out: Array<string>) => {
  if (Array.isArray(value)) {
    for (const item of value) out.push(`${encodeURIComponent(`${prefix}[]`)}=${encodeURIComponent(String(item))}`)
  } else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) formEncode(inner, prefix ? `${prefix}[${key}]` : key, out)
  } else {
    out.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(String(value))}`)
  }
  return out
}

const call = async (encoding: Encoding, method: string, path: string, body?: Record<string, unknown>) => {
  const url = `${path}${path.includes("?") ? "&" : "?"}access_token=${token}`
  const response =
    body === undefined
      ? await server.request(method, url)
      : encoding === "json"
        ? await server.request(method, url, { body })
        : await server.request(method, url, {
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: formEncode(body, "", []).join("&")
          })
  expect(response.status, `${method} ${path}: ${response.text}`).toBeGreaterThanOrEqual(200)
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300)
  return response
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  const businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const owner = await createPerson(server.pool, businessId, { role: "owner" })
  token = await createToken(server.pool, owner.accountId, businessId)
  const location = (await createLocation(server.pool, businessId)).id
  const service = await createService(server.pool, businessId, { type: "GroupClass", name: "Drop-in yoga" })
  const event = await scheduleEvent(server, businessId, {
    service_id: service,
    name: "Drop-in yoga",
    location_id: location,
    frequency: "weekly",
    start_date: "2026-11-03",
    weekdays: [2],
    start_time: "10:00",
    end_time: "11:00",
    session_count: 4,
    staff_member_ids: []
  })
  occurrences.push(...(await occurrencesOf(server.pool, businessId, event)).map((o) => o.id))
})
afterAll(() => server.close())

const newClient = async () => {
  const response = await call("json", "POST", "/api/v2/desk/people", {
    person: { first_name: "Drop", last_name: `In ${Math.random().toString(36).slice(2, 7)}` }
  })
  return response.json.people[0].id as number
}

const sellDropIn = async (encoding: Encoding, occurrenceId: number) => {
  const product = await call(encoding, "POST", "/api/v2/desk/pack_products", {
    pack_product: {
      product: { name: "Aggregator drop-in", price_cents: "500", visibility: "staff", description: "Sold by the aggregator" },
      count: "1",
      send_expiration_notifications: "false",
      commitment_length: "12",
      commitment_unit: "month"
    }
  })
  expect(product.status).toBe(201)
  const productId = product.json.pack_products[0].id as number
  expect(product.json.pack_products[0]).toMatchObject({
    count: 1,
    commitment_length: 12,
    commitment_unit: "month",
    send_expiration_notifications: false,
    product: { name: "Aggregator drop-in", price_cents: 500, visibility: "Staff" }
  })

  const personId = await newClient()
  const pack = await call(encoding, "POST", `/api/v2/desk/pack_products/${productId}/packs`, { pack: { person_ids: [personId] } })
  expect(pack.status).toBe(201)
  const packId = pack.json.packs[0].id as number
  expect(pack.json.packs[0]).toMatchObject({ count: 1, person_ids: [personId], pack_product_id: productId, price_cents: 500 })

  const visit = await call(encoding, "POST", "/api/v2/desk/visits", { visit: { person_id: personId, event_occurrence_id: occurrenceId } })
  const visitId = visit.json.visits[0].id as number

  const punch = await call(encoding, "POST", "/api/v2/desk/punches", { punch: { visit_id: visitId, plan_id: packId } })
  const punchId = punch.json.punches[0].id as number
  expect(punch.json.punches[0]).toMatchObject({ visit_id: visitId, plan_id: packId })
  expect(Object.keys(punch.json.punches[0])).toEqual(expect.arrayContaining(["id", "visit_id", "plan_id", "created_at"]))

  const paid = await call(encoding, "GET", `/api/v2/desk/visits/${visitId}`)
  expect(paid.json.visits[0]).toMatchObject({ paid: true, punch_id: punchId, paid_for_by: "Aggregator drop-in" })
  return { productId, packId, visitId, punchId, personId }
}

describe.each(["json", "form"] as const)("the booking integration's drop-in, %s bodies", (encoding) => {
  it("sells a one-visit pack, punches the visit with it, then unpunches and deletes the visit and the pack", async () => {
    const { packId, visitId, punchId } = await sellDropIn(encoding, occurrences[encoding === "json" ? 0 : 1]!)

    await call(encoding, "DELETE", `/api/v2/desk/punches/${punchId}`)
    const unpaid = await call(encoding, "GET", `/api/v2/desk/visits/${visitId}`)
    expect(unpaid.json.visits[0]).toMatchObject({ paid: false, punch_id: null })

    await call(encoding, "DELETE", `/api/v2/desk/visits/${visitId}`)
    await call(encoding, "DELETE", `/api/v2/desk/packs/${packId}`)
    expect((await server.request("GET", `/api/v2/desk/packs/${packId}?access_token=${token}`)).status).toBe(404)
    expect((await server.request("GET", `/api/v2/desk/visits/${visitId}?access_token=${token}`)).status).toBe(404)
  })

  it("cancels the way the client does: visit → punch → plan, delete the pack, then the visit", async () => {
    const { packId, visitId } = await sellDropIn(encoding, occurrences[encoding === "json" ? 2 : 3]!)
    const visit = await call(encoding, "GET", `/api/v2/desk/visits/${visitId}`)
    const punch = await call(encoding, "GET", `/api/v2/desk/punches/${visit.json.visits[0].punch_id}`)
    expect(punch.json.punches[0].plan_id).toBe(packId)

    await call(encoding, "DELETE", `/api/v2/desk/packs/${punch.json.punches[0].plan_id}`)
    const unpaid = await call(encoding, "GET", `/api/v2/desk/visits/${visitId}`)
    expect(unpaid.json.visits[0]).toMatchObject({ paid: false, punch_id: null, paid_for_by: null })
    await call(encoding, "DELETE", `/api/v2/desk/visits/${visitId}`)
  })
})
