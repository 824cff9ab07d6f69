import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seedDemo } from "../../src/tools/demo/seed.ts"
import { foldArrayParams } from "../../src/shared/query-lists.ts"
import { makeSettableClock } from "../support/clock.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/**
 * Issue 30 §2: list parameters in the array form Ruby (HTTParty), Rails and PHP clients send
 * (`location_ids[]=2&location_ids[]=3`) are read exactly as the comma-delimited form, on the
 * demo business; an unreadable list value is a 400, never a silently wider answer.
 */
const clock = makeSettableClock("2026-11-18T20:00:00Z") // Wednesday noon in Los Angeles
let server: TestServer
let owner: string

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock, dataDir: `.data/test/array-params-${process.pid}-${Date.now()}` })
  const seed = (await server.runtime.runPromise(seedDemo as never)) as { ownerToken: string }
  owner = seed.ownerToken
})
afterAll(async () => server?.close())

const desk = (path: string) => server.request("GET", `/api/v2/desk/${path}`, { token: owner })
const idOf = async (table: string, name: string) =>
  Number((await server.pool.query(`select t.id from ${table} t join businesses b on b.id = t.business_id where b.subdomain = 'demo' and t.name = $1`, [name])).rows[0].id)

describe("array-form list parameters", () => {
  it("event occurrences: service_ids[]=999 is refused as service_ids=999 is", async () => {
    const comma = await desk("event_occurrences?service_ids=999")
    const array = await desk("event_occurrences?service_ids[]=999")
    expect(comma.status).toBeGreaterThanOrEqual(400)
    expect(array.status).toBe(comma.status)
    expect(array.json).toEqual(comma.json)
    // Escaped brackets (what most libraries write) are the same.
    const escaped = await desk("event_occurrences?service_ids%5B%5D=999")
    expect(escaped.status).toBe(comma.status)
  })

  it("event occurrences: service_ids[] and location_ids[] filter as their comma forms", async () => {
    const yin = await idOf("services", "Yin Yoga")
    const reformer = await idOf("services", "Reformer Pilates")
    const week = "from=2026-11-16T00:00:00-08:00&to=2026-11-22T23:59:59-08:00"
    const all = await desk(`event_occurrences?${week}`)
    const comma = await desk(`event_occurrences?${week}&service_ids=${yin},${reformer}`)
    const array = await desk(`event_occurrences?${week}&service_ids[]=${yin}&service_ids[]=${reformer}`)
    const php = await desk(`event_occurrences?${week}&service_ids%5B0%5D=${yin}&service_ids%5B1%5D=${reformer}`)
    expect(array.status).toBe(200)
    const ids = (r: { json: { event_occurrences: Array<{ id: number }> } }) => r.json.event_occurrences.map((o) => o.id)
    expect(ids(comma).length).toBeGreaterThan(0)
    expect(ids(comma).length).toBeLessThan(ids(all).length)
    expect(ids(array)).toEqual(ids(comma))
    expect(ids(php)).toEqual(ids(comma))
  })

  it("events: ids[]=1 answers one event, not all of them", async () => {
    const all = await desk("events")
    const first = all.json.events[0].id as number
    expect(all.json.events.length).toBeGreaterThan(1)
    const array = await desk(`events?ids[]=${first}`)
    expect(array.status).toBe(200)
    expect(array.json.events.map((e: { id: number }) => e.id)).toEqual([first])
  })

  it("invoices: state[]=closed counts as state=closed", async () => {
    const all = await desk("invoices")
    const comma = await desk("invoices?state=closed")
    const array = await desk("invoices?state[]=closed")
    expect(comma.json.total_count).toBeLessThan(all.json.total_count)
    expect(array.status).toBe(200)
    expect(array.json.total_count).toBe(comma.json.total_count)
    const two = await desk("invoices?state[]=closed&state[]=open")
    expect(two.json.total_count).toBe((await desk("invoices?state=closed,open")).json.total_count)
  })

  it("appointment slots: location_ids[] keeps to those locations", async () => {
    const privateYoga = await idOf("services", "Private Yoga Session")
    const brooklyn = await idOf("locations", "Brooklyn Heights")
    const venice = await idOf("locations", "Venice Beach")
    const slots = (query: string) => desk(`appointments/${privateYoga}/available_slots?date=2026-11-19${query}`)
    const all = await slots("")
    expect(all.json.available_slots.length).toBeGreaterThan(0)
    const elsewhere = await slots(`&location_ids[]=${brooklyn}`)
    expect(elsewhere.status).toBe(200)
    expect(elsewhere.json.available_slots).toEqual([])
    const both = await slots(`&location_ids[]=${brooklyn}&location_ids[]=${venice}`)
    expect(both.json.available_slots).toEqual(all.json.available_slots)
    const summary = await desk(`appointments/${privateYoga}/available_slots/summary?from=2026-11-19&to=2026-11-21&location_ids[]=${brooklyn}`)
    expect(summary.status).toBe(200)
    expect(summary.json).toEqual((await desk(`appointments/${privateYoga}/available_slots/summary?from=2026-11-19&to=2026-11-21&location_ids=${brooklyn}`)).json)
  })

  it("the same key repeated (ids=1&ids=2, as Python's requests sends a list) is the same list", async () => {
    const all = await desk("events")
    const [a, b] = all.json.events.map((e: { id: number }) => e.id) as [number, number]
    const repeated = await desk(`events?ids=${a}&ids=${b}`)
    expect(repeated.status).toBe(200)
    expect(repeated.json.events.map((e: { id: number }) => e.id).sort()).toEqual([a, b].sort())
    const invoices = await desk("invoices?state=closed&state=open")
    expect(invoices.status).toBe(200)
    expect(invoices.json.total_count).toBe((await desk("invoices?state=closed,open")).json.total_count)
  })

  it("answers 400 for an array-form value that cannot be read", async () => {
    for (const query of ["events?ids[]=abc", "events?ids[]=1&ids[]=x", "event_occurrences?state[]=bogus", "event_occurrences?location_ids[]=-1"]) {
      const response = await desk(query)
      expect(response.status, query).toBe(400)
      expect(response.json.errors, query).toEqual([expect.any(String)])
    }
  })
})

describe("foldArrayParams", () => {
  it("folds name[] and name[n] into one comma-delimited name and leaves other brackets alone", () => {
    const fold = (search: string) => Object.fromEntries(new URLSearchParams(foldArrayParams(search)))
    expect(fold("?a[]=1&a[]=2&b=3")).toEqual({ a: "1,2", b: "3" })
    expect(fold("?a=1&a%5B%5D=2")).toEqual({ a: "1,2" })
    expect(fold("?a[0]=1&a[1]=2")).toEqual({ a: "1,2" })
    expect(fold("?a[]=")).toEqual({ a: "" })
    expect(fold("?a[]=&a[]=4")).toEqual({ a: "4" })
    expect(fold("?page[size]=5&filter[status]=failed")).toEqual({ "page[size]": "5", "filter[status]": "failed" })
    expect(foldArrayParams("?a=1&b=2")).toBe("?a=1&b=2")
    expect(foldArrayParams("")).toBe("")
  })
})
