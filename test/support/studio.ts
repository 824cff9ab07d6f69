import { createApplication, createBusiness, createLocation, createPerson, createToken } from "./factories.ts"
import type { SettableClock } from "./clock.ts"
import { type TestServer, startTestServer } from "./server.ts"
import { apiCaller } from "./http.ts"
import { createDependent } from "../people/fixtures.ts"
import { addWorkingHours, createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/**
 * The studio of the booking tests, in Los Angeles, on Monday 2026-11-02 08:00 PST:
 * - "Yoga" (group class) every day 10:00-11:00 (18:00Z), `capacity` places;
 * - "Intro Course" (course) Tuesdays and Thursdays 18:00-19:00, 4 sessions from 2026-11-03;
 * - "Private" (appointment, 60 min) with Ines, Mon-Fri 09:00-17:00 at Main;
 * - a client Cleo (with a dependent Kid), another client Otto, an owner, a front-desk staff
 *   member; another business "elsewhere" with a class of its own.
 */
export const NOW = "2026-11-02T16:00:00Z"

export const setUpStudio = async (clock: SettableClock, options: { readonly capacity?: number; readonly worker?: boolean } = {}) => {
  clock.set(NOW)
  const server = await startTestServer({ clock: clock.clock, worker: options.worker ?? false })
  const pool = server.pool
  await createApplication(pool, "test-app")
  const business = await createBusiness(pool, { subdomain: "demo", time_zone: "America/Los_Angeles" })
  const elsewhere = await createBusiness(pool, { subdomain: "elsewhere" })
  const main = (await createLocation(pool, business.id, { name: "Main", time_zone: "America/Los_Angeles" })).id
  const owner = await createPerson(pool, business.id, { role: "owner", first_name: "Olga", last_name: "Owner" })
  const ownerToken = await createToken(pool, owner.accountId, business.id)
  const ines = await createPerson(pool, business.id, { role: "standard", first_name: "Ines", last_name: "Alvarez" })
  const cleo = await createPerson(pool, business.id, { first_name: "Cleo", last_name: "Client" })
  const cleoToken = await createToken(pool, cleo.accountId, business.id)
  const kid = await createDependent(pool, business.id, cleo.personId, { first_name: "Kid" })
  const otto = await createPerson(pool, business.id, { first_name: "Otto", last_name: "Other" })
  const ottoToken = await createToken(pool, otto.accountId, business.id)
  const capacity = options.capacity ?? 3
  const services = {
    yoga: await createService(pool, business.id, { type: "GroupClass", name: "Yoga", maximum_clients: capacity }),
    course: await createService(pool, business.id, { type: "Course", name: "Intro Course", maximum_clients: 5 }),
    private: await createService(pool, business.id, { type: "Appointment", name: "Private", staff_member_ids: [ines.staffMemberId!] })
  }
  for (const weekday of [1, 2, 3, 4, 5]) await addWorkingHours(pool, business.id, ines.staffMemberId!, main, weekday, "09:00", "17:00")
  const common = { location_id: main, frequency: "weekly" as const, staff_member_ids: [owner.staffMemberId!] }
  const events = {
    yoga: await scheduleEvent(server, business.id, {
      ...common,
      service_id: services.yoga,
      name: "Yoga",
      weekdays: [0, 1, 2, 3, 4, 5, 6],
      start_date: "2026-11-02",
      end_date: "2026-11-30",
      start_time: "10:00",
      end_time: "11:00"
    }),
    course: await scheduleEvent(server, business.id, {
      ...common,
      service_id: services.course,
      name: "Intro Course",
      weekdays: [2, 4],
      start_date: "2026-11-03",
      session_count: 4,
      start_time: "18:00",
      end_time: "19:00"
    })
  }
  const yogaSessions = await occurrencesOf(pool, business.id, events.yoga)
  const courseSessions = await occurrencesOf(pool, business.id, events.course)
  const foreignService = await createService(pool, elsewhere.id, { type: "GroupClass", name: "Foreign" })
  const foreignOwner = await createPerson(pool, elsewhere.id, { role: "owner" })
  const foreignToken = await createToken(pool, foreignOwner.accountId, elsewhere.id)
  const foreignEvent = await scheduleEvent(server, elsewhere.id, {
    ...common,
    location_id: null,
    staff_member_ids: [foreignOwner.staffMemberId!],
    service_id: foreignService,
    name: "Foreign",
    weekdays: [1],
    start_date: "2026-11-02",
    end_date: "2026-11-30",
    start_time: "12:00",
    end_time: "13:00"
  })
  const foreignOccurrence = (await occurrencesOf(pool, elsewhere.id, foreignEvent))[0]!.id
  return {
    server,
    pool,
    business,
    elsewhere,
    main,
    owner: { ...owner, token: ownerToken },
    ines,
    cleo: { ...cleo, token: cleoToken },
    kid,
    otto: { ...otto, token: ottoToken },
    foreignToken,
    foreignOccurrence,
    services,
    events,
    /** Yoga sessions by date (2026-11-02 .. 2026-11-30). */
    yoga: (date: string) => yogaSessions.find((s) => s.date === date)!,
    courseSessions,
    capacity
  }
}

export type Studio = Awaited<ReturnType<typeof setUpStudio>>

/** Holding visits of an occurrence by state. */
export const visitStates = async (server: TestServer, occurrenceId: number) => {
  const { rows } = await server.pool.query(`select state from visits where event_occurrence_id = $1 order by id`, [occurrenceId])
  return rows.map((row: { state: string }) => row.state)
}

export const capacityRemaining = async (studio: Studio, occurrenceId: number) => {
  const response = await studio.server.request("GET", `/api/v2/desk/event_occurrences/${occurrenceId}`, { token: studio.owner.token })
  return response.json.event_occurrences[0].capacity_remaining as number | null
}

/** The studio's Core API as its owner (`desk`) and as the client Cleo (`front`). */
export const studioCallers = (studio: () => Studio) => ({
  desk: apiCaller("/api/v2/desk", () => ({ request: studio().server.request, token: studio().owner.token })),
  front: apiCaller("/api/v2/front", () => ({ request: studio().server.request, token: studio().cleo.token }))
})
