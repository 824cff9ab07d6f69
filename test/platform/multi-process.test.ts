import { generateToken, hashToken } from "../../src/access/tokens.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import type { TestResponse } from "../support/http.ts"
import { type ProcessGroup, startProcessGroup } from "../support/multi-process.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/**
 * Two `studio serve` and two `studio worker` processes on one database, each an OS process:
 * nothing a client can observe depends on which process answers. The in-process server only
 * writes the fixtures.
 */
let setup: TestServer
let group: ProcessGroup
let business: { id: number; subdomain: string }
let owner: { accountId: number; personId: number; staffMemberId?: number }
let occurrenceId: number

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)

beforeAll(async () => {
  setup = await startTestServer()
  const pool = setup.pool
  await createApplication(pool, "test-app")
  business = await createBusiness(pool, { subdomain: "demo", time_zone: "UTC" })
  const main = (await createLocation(pool, business.id, { name: "Main", time_zone: "UTC" })).id
  owner = await createPerson(pool, business.id, { role: "owner" })
  const yoga = await createService(pool, business.id, { type: "GroupClass", name: "Yoga", maximum_clients: 5 })
  const day = tomorrow()
  const event = await scheduleEvent(setup, business.id, {
    location_id: main,
    frequency: "weekly",
    staff_member_ids: [owner.staffMemberId!],
    service_id: yoga,
    name: "Yoga",
    weekdays: [0, 1, 2, 3, 4, 5, 6],
    start_date: day,
    end_date: day,
    start_time: "22:00",
    end_time: "23:00"
  })
  occurrenceId = (await occurrencesOf(pool, business.id, event))[0]!.id
  group = await startProcessGroup({ databaseUrl: setup.databaseUrl, env: { RATE_LIMIT_PER_TOKEN: "20" } })
}, 180_000)

afterAll(async () => {
  await group?.stop()
  await setup?.close()
})

const ownerToken = () => createToken(setup.pool, owner.accountId, business.id)
const via = (index: number) => group.api[index % group.api.length]!.request

describe("one rate-limit budget per token across the API processes (RATE_LIMIT_PER_TOKEN=20)", () => {
  it("40 requests spread over both processes, one after the other: at most 20 answered, headers counting the shared budget", async () => {
    const token = await ownerToken()
    const responses: Array<TestResponse> = []
    for (let i = 0; i < 40; i++) responses.push(await via(i)("GET", "/api/v2/desk/business", { token }))
    const answered = responses.filter((response) => response.status !== 429)
    expect(answered.length).toBeLessThanOrEqual(20)
    expect(answered.length).toBeGreaterThanOrEqual(15)
    for (const response of answered) expect(response.status).toBe(200)
    for (const response of responses) expect(response.headers["ratelimit-limit"]).toBe("20")
    // The k-th answer of the window reports at most what the shared budget still had, give or
    // take the slice (5) the answering process holds; a budget per process would say far more.
    answered.forEach((response, k) => expect(Number(response.headers["ratelimit-remaining"])).toBeLessThanOrEqual(20 - (k + 1) + 5))
    for (const refused of responses.filter((response) => response.status === 429)) {
      expect(refused.headers["ratelimit-remaining"]).toBe("0")
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0)
      expect(refused.json.errors).toHaveLength(1)
    }
    // Both processes answered some and refused some.
    expect(new Set(responses.map((response, i) => `${i % 2}:${response.status}`)).size).toBe(4)
  })

  it("40 requests at once over both processes: never more than 20 answered", async () => {
    const token = await ownerToken()
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => via(i)("GET", "/api/v2/desk/business", { token })))
    const answered = responses.filter((response) => response.status !== 429)
    expect(answered.length).toBeLessThanOrEqual(20)
    expect(answered.length).toBeGreaterThanOrEqual(15)
  })
})

describe("bookings over both processes", () => {
  it("80 people booking 5 places at once: exactly 5 succeed", { timeout: 120_000 }, async () => {
    const clients = []
    for (let i = 0; i < 80; i++) {
      const person = await createPerson(setup.pool, business.id, { first_name: `P${i}`, last_name: "Parallel" })
      clients.push({ personId: person.personId, token: await createToken(setup.pool, person.accountId, business.id) })
    }
    const responses = await Promise.all(
      clients.map((client, i) =>
        via(i)("POST", "/api/v2/front/bookings", {
          token: client.token,
          body: { booking: { complete_booking: true, leases: [{ event_occurrence_id: occurrenceId, person: { id: client.personId } }] } }
        }))
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 201)).toHaveLength(5)
    expect(statuses.filter((status) => status === 422)).toHaveLength(75)
    const { rows } = await setup.pool.query(
      `select count(*)::int as n from visits where event_occurrence_id = $1 and state = 'registered'`,
      [occurrenceId]
    )
    expect(rows[0].n).toBe(5)
  })
})

describe("caches of every process", () => {
  it("a token revoked through one process is refused by the other within a second", async () => {
    // A token issued to a public client, which may revoke it with its client_id alone.
    const app = await setup.pool.query(
      `insert into oauth_applications (client_id, name, redirect_uri, is_public)
       values ('public-app', 'Public app', 'http://localhost/callback', true) returning id`
    )
    const token = generateToken()
    await setup.pool.query(`insert into access_tokens (token_hash, account_id, business_id, application_id) values ($1, $2, $3, $4)`, [
      hashToken(token),
      owner.accountId,
      business.id,
      app.rows[0].id
    ])
    // The other process has verified (and cached) the token.
    expect((await via(1)("GET", "/api/v2/desk/business", { token })).status).toBe(200)
    const revoked = await via(0)("POST", "/oauth/revoke", { body: { token, client_id: "public-app" } })
    expect(revoked.status).toBe(200)
    expect((await via(0)("GET", "/api/v2/desk/business", { token })).status).toBe(401)
    const deadline = Date.now() + 1_000
    let status = 200
    while (Date.now() < deadline && status !== 401) {
      status = (await via(1)("GET", "/api/v2/desk/business", { token })).status
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(status).toBe(401)
  })
})

describe("an API process killed under load", () => {
  it("kill -9 of one: the other keeps answering, and every write answered 2xx is stored", { timeout: 120_000 }, async () => {
    const total = 60
    const tokens = await Promise.all(Array.from({ length: total }, () => ownerToken()))
    const outcomes: Array<{ index: number; process: number; response?: TestResponse; error?: unknown; afterKill: boolean }> = []
    let killed = false
    let next = 0
    const send = async () => {
      while (next < total) {
        const index = next++
        const target = index % 2
        const afterKill = killed
        try {
          const response = await via(target)("POST", "/api/v2/desk/people", {
            token: tokens[index]!,
            body: { person: { first_name: `K${index}`, last_name: "Killed" } }
          })
          outcomes.push({ index, process: target, response, afterKill })
        } catch (error) {
          outcomes.push({ index, process: target, error, afterKill })
        }
        if (!killed && outcomes.length >= 20) {
          killed = true
          group.api[0]!.process.process.kill("SIGKILL")
        }
      }
    }
    await Promise.all(Array.from({ length: 6 }, send))
    expect(killed).toBe(true)
    // The survivor answered everything sent to it.
    const survivor = outcomes.filter((outcome) => outcome.process === 1)
    expect(survivor.length).toBe(total / 2)
    for (const outcome of survivor) expect(outcome.response?.status, String(outcome.error)).toBe(201)
    // The killed one refused connections once dead.
    expect(outcomes.some((outcome) => outcome.process === 0 && outcome.afterKill && outcome.error !== undefined)).toBe(true)
    // Every 2xx kept its write.
    const created = outcomes
      .filter((outcome) => outcome.response && outcome.response.status >= 200 && outcome.response.status < 300)
      .map((outcome) => outcome.response!.json.people[0].id as number)
    const { rows } = await setup.pool.query(`select id from people where id = any($1::bigint[]) and last_name = 'Killed'`, [created])
    expect(rows.map((row: { id: string }) => Number(row.id)).sort()).toEqual(created.map(Number).sort())
    expect(created.length).toBeGreaterThanOrEqual(total / 2)
  })
})
