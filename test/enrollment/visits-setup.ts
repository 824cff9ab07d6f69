import { afterAll, beforeAll } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createDependent, pendingJobs } from "../people/fixtures.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/**
 * The data of the visits tests over HTTP (visits.test.ts, visits-reading.test.ts): a Los Angeles
 * business whose clock stands at 2026-10-25 11:00 local (18:00Z), one server per test file.
 * Occurrences are made per test so each one controls its own places.
 */
export const NOW = "2026-10-25T18:00:00Z"
export const clock = makeSettableClock(NOW)

export let server: TestServer
export let business: { id: number; subdomain: string }
export let elsewhere: { id: number; subdomain: string }
export let location: number
export let staffMemberId: number
export let ownerToken: string
export let ownerPersonId: number
export let parent: Awaited<ReturnType<typeof createPerson>>
export let parentToken: string
export let childId: number
export let other: Awaited<ReturnType<typeof createPerson>>
export let otherToken: string
export let foreignToken: string
export let foreignOccurrence: number
export let services: Record<"open" | "restricted" | "staffOnly", number>

export type Visit = { id: number; person_id: number | null; state: string; [key: string]: unknown }

export const desk = {
  post: (visit: unknown, token = ownerToken) => server.request("POST", "/api/v2/desk/visits", { token, body: { visit } }),
  put: (id: number, visit: unknown, token = ownerToken) => server.request("PUT", `/api/v2/desk/visits/${id}`, { token, body: { visit } }),
  get: (path: string, token = ownerToken) => server.request("GET", path, { token }),
  delete: (id: number, token = ownerToken) => server.request("DELETE", `/api/v2/desk/visits/${id}`, { token })
}
export const front = {
  post: (visit: unknown, token = parentToken) => server.request("POST", "/api/v2/front/visits", { token, body: { visit } }),
  get: (path: string, token = parentToken) => server.request("GET", path, { token }),
  delete: (id: number, token = parentToken) => server.request("DELETE", `/api/v2/front/visits/${id}`, { token })
}

export let dayCounter = 0
/** A one-off class on its own day (Nov 2026 onwards, so in the future) unless a date is given. */
export const occurrence = async (
  options: { capacity?: number | null; service?: number; date?: string; start?: string; end?: string; businessId?: number } = {}
) => {
  const date = options.date ?? `2026-11-${String(2 + (dayCounter++ % 27)).padStart(2, "0")}`
  const businessId = options.businessId ?? business.id
  const eventId = await scheduleEvent(server, businessId, {
    service_id: options.service ?? services.open,
    location_id: businessId === business.id ? location : null,
    name: `Class ${dayCounter}`,
    frequency: "once",
    weekdays: [],
    start_date: date,
    start_time: options.start ?? "09:00",
    end_time: options.end ?? "10:00",
    capacity: options.capacity === undefined ? 10 : options.capacity,
    staff_member_ids: businessId === business.id ? [staffMemberId] : []
  })
  return (await occurrencesOf(server.pool, businessId, eventId))[0]!.id
}

export const newPerson = async (fields: Parameters<typeof createPerson>[2] = {}) => (await createPerson(server.pool, business.id, fields)).personId

export const visitRow = async (id: number) =>
  (await server.pool.query(`select * from visits where business_id = $1 and id = $2`, [business.id, id])).rows[0]

export const mailsTo = async (to: string) =>
  ((await pendingJobs(server.pool, "send_mail")) as Array<{ to: string; template: string; subject: string; text: string }>).filter(
    (job) => job.to === to
  )

/** Registers the file's server and its business, people and services (and their clean-up). */
export const setUpVisits = () => {
  beforeAll(async () => {
    server = await startTestServer({ clock: clock.clock })
    await createApplication(server.pool, "test-app")
    business = await createBusiness(server.pool, { subdomain: "demo", name: "Demo Studio", time_zone: "America/Los_Angeles" })
    elsewhere = await createBusiness(server.pool, { subdomain: "elsewhere" })
    location = (await createLocation(server.pool, business.id, { name: "Main" })).id
    const owner = await createPerson(server.pool, business.id, { role: "owner", email: "owner@example.test" })
    ownerPersonId = owner.personId
    staffMemberId = owner.staffMemberId!
    ownerToken = await createToken(server.pool, owner.accountId, business.id)
    parent = await createPerson(server.pool, business.id, { first_name: "Pat", email: "pat@example.test" })
    parentToken = await createToken(server.pool, parent.accountId, business.id)
    childId = await createDependent(server.pool, business.id, parent.personId, { first_name: "Kim" })
    other = await createPerson(server.pool, business.id, { first_name: "Olga", email: "olga@example.test" })
    otherToken = await createToken(server.pool, other.accountId, business.id)
    const foreigner = await createPerson(server.pool, elsewhere.id)
    foreignToken = await createToken(server.pool, foreigner.accountId, elsewhere.id)
    services = {
      open: await createService(server.pool, business.id, { type: "GroupClass", name: "Open", enrollment_window_blackout_minutes: 60 }),
      restricted: await createService(server.pool, business.id, {
        type: "GroupClass",
        name: "Restricted",
        online_booking: false,
        clients_can_book: false,
        require_plan: true
      }),
      staffOnly: await createService(server.pool, business.id, { type: "GroupClass", name: "Staff only", visibility: "Staff" })
    }
    const foreignService = await createService(server.pool, elsewhere.id, { type: "GroupClass", name: "Theirs" })
    foreignOccurrence = await occurrence({ service: foreignService, businessId: elsewhere.id })
  }, 120_000)

  afterAll(async () => {
    await server?.close()
  })
}
