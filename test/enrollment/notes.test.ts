import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { createApplication, createBusiness, createLocation, createPerson, createToken } from "../support/factories.ts"
import { type TestServer, startTestServer } from "../support/server.ts"
import { createDependent, pendingJobs } from "../people/fixtures.ts"
import { createService, occurrencesOf, scheduleEvent } from "../schedule/fixtures.ts"

/** Notes over HTTP: staff writes on both paths, client visibility, newest-first lists, the delete policy. */
const clock = makeSettableClock("2026-11-02T10:00:00Z")
let server: TestServer
let businessId: number
const tokens: Record<"owner" | "manager" | "author" | "colleague" | "client" | "other", string> = {} as never
let authorPersonId: number
let client: { personId: number; email: string }
let dependentId: number
let otherPersonId: number
let classId: number
let membersClassId: number
let foreignOccurrence: number
let foreignPerson: number

const request = (method: string, path: string, token?: string, body?: unknown) =>
  server.request(method, path, { ...(token ? { token } : {}), ...(body === undefined ? {} : { body }) })

const addNote = async (path: string, note: Record<string, unknown>, token = tokens.author) => {
  const response = await request("POST", path, token, { note })
  expect(response.status, response.text).toBe(201)
  return response.json.notes[0]
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.clock })
  await createApplication(server.pool, "test-app")
  businessId = (await createBusiness(server.pool, { subdomain: "demo" })).id
  const elsewhere = (await createBusiness(server.pool, { subdomain: "elsewhere" })).id
  const staff = async (role: "owner" | "manager" | "standard") => {
    const person = await createPerson(server.pool, businessId, { role })
    return { person, token: await createToken(server.pool, person.accountId, businessId) }
  }
  tokens.owner = (await staff("owner")).token
  tokens.manager = (await staff("manager")).token
  const author = await staff("standard")
  tokens.author = author.token
  authorPersonId = author.person.personId
  tokens.colleague = (await staff("standard")).token
  const clientAccount = await createPerson(server.pool, businessId, { first_name: "Cleo", email: "cleo@example.test" })
  client = clientAccount
  tokens.client = await createToken(server.pool, clientAccount.accountId, businessId)
  dependentId = await createDependent(server.pool, businessId, client.personId)
  const otherAccount = await createPerson(server.pool, businessId)
  otherPersonId = otherAccount.personId
  tokens.other = await createToken(server.pool, otherAccount.accountId, businessId)
  foreignPerson = (await createPerson(server.pool, elsewhere)).personId

  const location = (await createLocation(server.pool, businessId)).id
  const common = { location_id: location, frequency: "weekly" as const, start_date: "2026-11-03", weekdays: [2], start_time: "10:00", end_time: "11:00", session_count: 1, staff_member_ids: [] }
  const yoga = await createService(server.pool, businessId, { type: "GroupClass", name: "Yoga" })
  classId = (await occurrencesOf(server.pool, businessId, await scheduleEvent(server, businessId, { ...common, service_id: yoga, name: "Yoga" })))[0]!.id
  const members = await createService(server.pool, businessId, { type: "GroupClass", name: "Members", visibility: "Members" })
  membersClassId = (await occurrencesOf(server.pool, businessId, await scheduleEvent(server, businessId, { ...common, service_id: members, name: "Members" })))[0]!.id
  const foreignService = await createService(server.pool, elsewhere, { type: "GroupClass", name: "Far" })
  const foreignLocation = (await createLocation(server.pool, elsewhere)).id
  foreignOccurrence = (await occurrencesOf(server.pool, elsewhere, await scheduleEvent(server, elsewhere, { ...common, location_id: foreignLocation, service_id: foreignService, name: "Far" })))[0]!.id
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe("staff writes", () => {
  it("creates a note on a person with the defaults, and on an occurrence", async () => {
    const note = await addNote(`/api/v2/desk/people/${client.personId}/notes`, { note: "Knee injury: no deep lunges" })
    expect(note).toEqual({
      id: expect.any(Number),
      note: "Knee injury: no deep lunges",
      public: false,
      pinned: false,
      person_id: client.personId,
      event_occurrence_id: null,
      subject: "Person",
      created_by_id: authorPersonId,
      created_at: "2026-11-02T10:00:00Z",
      updated_at: "2026-11-02T10:00:00Z"
    })
    const form = await server.request("POST", `/api/v2/desk/event_occurrences/${classId}/notes`, {
      token: tokens.author,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "note[note]=Bring+a+mat&note[public]=true&note[pinned]=1"
    })
    expect(form.status, form.text).toBe(201)
    expect(form.json.notes[0]).toMatchObject({ note: "Bring a mat", public: true, pinned: true, person_id: null, event_occurrence_id: classId, subject: "EventOccurrence" })
  })

  it("refuses a missing, blank or over-long note, and malformed flags", async () => {
    const path = `/api/v2/desk/people/${client.personId}/notes`
    for (const note of [{}, { note: "   " }, { note: null }]) {
      const response = await request("POST", path, tokens.author, { note })
      expect(response.status).toBe(422)
      expect(response.json.errors).toEqual(["note can't be blank"])
    }
    const long = await request("POST", path, tokens.author, { note: { note: "x".repeat(10001) } })
    expect(long.status).toBe(422)
    expect(long.json.errors).toEqual(["note is too long (at most 10000 characters)"])
    expect((await request("POST", path, tokens.author, { note: { note: "ok", public: "maybe" } })).status).toBe(400)
    expect((await request("POST", path, tokens.author, { note: "ok" })).status).toBe(400)
  })

  it("is not found for unknown people and occurrences, or another business's", async () => {
    for (const path of [
      `/api/v2/desk/people/999999/notes`,
      `/api/v2/desk/people/${foreignPerson}/notes`,
      `/api/v2/desk/event_occurrences/${foreignOccurrence}/notes`
    ]) {
      expect((await request("POST", path, tokens.author, { note: { note: "Hi" } })).status, path).toBe(404)
      expect((await request("GET", path, tokens.author)).status, path).toBe(404)
    }
    expect((await request("GET", `/api/v2/desk/people/${client.personId}/notes`, tokens.client)).status).toBe(403)
    expect((await request("GET", `/api/v2/desk/people/${client.personId}/notes`)).status).toBe(401)
  })

  it("updates the text, keeping absent flags", async () => {
    const note = await addNote(`/api/v2/desk/people/${otherPersonId}/notes`, { note: "First", public: true })
    clock.set("2026-11-02T11:00:00Z")
    try {
      const path = `/api/v2/desk/people/${otherPersonId}/notes/${note.id}`
      const updated = await request("PUT", path, tokens.colleague, { note: { note: "Second", pinned: true } })
      expect(updated.status, updated.text).toBe(200)
      expect(updated.json.notes[0]).toMatchObject({ note: "Second", public: true, pinned: true, updated_at: "2026-11-02T11:00:00Z", created_at: "2026-11-02T10:00:00Z" })
      const blank = await request("PUT", path, tokens.colleague, { note: { public: false } })
      expect(blank.status).toBe(422)
      expect(blank.json.errors).toEqual(["note can't be blank"])
      // The note exists, but not under another path.
      expect((await request("PUT", `/api/v2/desk/people/${client.personId}/notes/${note.id}`, tokens.colleague, { note: { note: "X" } })).status).toBe(404)
      expect((await request("GET", `/api/v2/desk/event_occurrences/${classId}/notes/${note.id}`, tokens.colleague)).status).toBe(404)
      expect((await request("GET", path, tokens.colleague)).json.notes[0].note).toBe("Second")
    } finally {
      clock.set("2026-11-02T10:00:00Z")
    }
  })
})

describe("lists", () => {
  it("are newest first and paginated", async () => {
    const path = `/api/v2/desk/people/${dependentId}/notes`
    const ids: Array<number> = []
    for (const [i, at] of ["2026-11-01T08:00:00Z", "2026-11-01T09:00:00Z", "2026-11-01T09:00:00Z"].entries()) {
      clock.set(at)
      ids.push((await addNote(path, { note: `Note ${i}`, public: i !== 1 })).id)
    }
    clock.set("2026-11-02T10:00:00Z")
    const first = await request("GET", `${path}?per_page=2`, tokens.author)
    expect(first.status).toBe(200)
    expect(first.json.total_count).toBe(3)
    // Same created_at: the higher id first.
    expect(first.json.notes.map((n: any) => n.id)).toEqual([ids[2], ids[1]])
    const next = new URL(first.json.next)
    const second = await server.request("GET", next.pathname + next.search, { token: tokens.author })
    expect(second.json.notes.map((n: any) => n.id)).toEqual([ids[0]])
    expect(second.json.next).toBeUndefined()

    // The client sees the public ones of their dependent.
    const front = await request("GET", `/api/v2/front/people/${dependentId}/notes`, tokens.client)
    expect(front.status, front.text).toBe(200)
    expect(front.json.notes.map((n: any) => n.id)).toEqual([ids[2], ids[0]])
    expect(front.json.total_count).toBe(2)
  })
})

describe("client mode", () => {
  it("shows public notes of the person and their dependents only", async () => {
    const hidden = await addNote(`/api/v2/desk/people/${client.personId}/notes`, { note: "Staff only" })
    const shown = await addNote(`/api/v2/desk/people/${client.personId}/notes`, { note: "Welcome!", public: true })
    const list = await request("GET", `/api/v2/front/people/${client.personId}/notes`, tokens.client)
    expect(list.json.notes.map((n: any) => n.id)).toEqual([shown.id])
    expect(list.headers["cache-control"]).toContain("private")
    expect((await request("GET", `/api/v2/front/people/${client.personId}/notes/${shown.id}`, tokens.client)).json.notes[0]).toEqual(shown)
    const privateOne = await request("GET", `/api/v2/front/people/${client.personId}/notes/${hidden.id}`, tokens.client)
    expect(privateOne.status).toBe(404)
    expect(privateOne.json.errors).toEqual([`Note ${hidden.id} not found`])
    expect((await request("GET", `/api/v2/front/people/${client.personId}/notes`, tokens.other)).status).toBe(404)
    expect((await request("GET", `/api/v2/front/people/${client.personId}/notes/${shown.id}`, tokens.other)).status).toBe(404)
    expect((await request("GET", `/api/v2/front/people/${otherPersonId}/notes`, tokens.client)).status).toBe(404)
    expect((await request("GET", `/api/v2/front/people/${client.personId}/notes?client_id=test-app`)).status).toBe(401)
  })

  it("shows public notes of occurrences the caller can see", async () => {
    const privateOne = await addNote(`/api/v2/desk/event_occurrences/${classId}/notes`, { note: "Sub teacher" })
    const list = await request("GET", `/api/v2/front/event_occurrences/${classId}/notes?client_id=test-app`)
    expect(list.status, list.text).toBe(200)
    expect(list.json.notes.map((n: any) => n.note)).toEqual(["Bring a mat"])
    expect((await request("GET", `/api/v2/front/event_occurrences/${classId}/notes/${privateOne.id}`, tokens.client)).status).toBe(404)
    await addNote(`/api/v2/desk/event_occurrences/${membersClassId}/notes`, { note: "Members only", public: true })
    expect((await request("GET", `/api/v2/front/event_occurrences/${membersClassId}/notes`, tokens.client)).status).toBe(404)
    expect((await request("GET", `/api/v2/front/event_occurrences/${foreignOccurrence}/notes`, tokens.client)).status).toBe(404)
    // A person's note is not an occurrence's.
    const personNote = (await request("GET", `/api/v2/front/people/${client.personId}/notes`, tokens.client)).json.notes[0]
    expect((await request("GET", `/api/v2/front/event_occurrences/${classId}/notes/${personNote.id}`, tokens.client)).status).toBe(404)
  })
})

describe("deleting", () => {
  it("is allowed to the author, a manager and an owner; refused to other staff", async () => {
    const path = `/api/v2/desk/people/${otherPersonId}/notes`
    const mine = await addNote(path, { note: "by the author" })
    const refused = await request("DELETE", `${path}/${mine.id}`, tokens.colleague)
    expect(refused.status).toBe(403)
    expect(refused.json.errors).toEqual(["Only its author, a manager or an owner may do this"])
    expect((await request("DELETE", `${path}/${mine.id}`, tokens.author)).status).toBe(204)
    expect((await request("GET", `${path}/${mine.id}`, tokens.author)).status).toBe(404)
    for (const token of [tokens.manager, tokens.owner]) {
      const note = await addNote(path, { note: "someone else's" })
      expect((await request("DELETE", `${path}/${note.id}`, token)).status).toBe(204)
    }
    const occurrenceNote = await addNote(`/api/v2/desk/event_occurrences/${classId}/notes`, { note: "temp" })
    expect((await request("DELETE", `/api/v2/desk/people/${otherPersonId}/notes/${occurrenceNote.id}`, tokens.owner)).status).toBe(404)
    expect((await request("DELETE", `/api/v2/desk/event_occurrences/${classId}/notes/${occurrenceNote.id}`, tokens.colleague)).status).toBe(403)
    expect((await request("DELETE", `/api/v2/desk/event_occurrences/${classId}/notes/${occurrenceNote.id}`, tokens.author)).status).toBe(204)
    expect((await request("DELETE", `${path}/999999`, tokens.owner)).status).toBe(404)
  })

  it("deletes once when the request arrives ten times at once: one 204, the repeats 404 as after it", async () => {
    for (const path of [`/api/v2/desk/people/${otherPersonId}/notes`, `/api/v2/desk/event_occurrences/${classId}/notes`]) {
      const note = await addNote(path, { note: "sent twice" })
      const answers = await Promise.all(Array.from({ length: 10 }, () => request("DELETE", `${path}/${note.id}`, tokens.owner)))
      expect(answers.map((answer) => answer.status).sort()).toEqual([204, ...Array(9).fill(404)])
    }
  })
})

describe("notifications", () => {
  const noteMails = async () =>
    ((await pendingJobs(server.pool, "send_mail")) as Array<{ to: string; template: string; text: string }>).filter((m) => m.template === "note_added")

  it("mails a public note when asked, never a private one", async () => {
    const before = (await noteMails()).length
    await addNote(`/api/v2/desk/people/${client.personId}/notes`, { note: "Secret", send_notifications: true })
    await addNote(`/api/v2/desk/people/${client.personId}/notes`, { note: "No mail", public: true })
    expect((await noteMails()).length).toBe(before)
    await addNote(`/api/v2/desk/people/${client.personId}/notes`, { note: "See you Tuesday", public: true, send_notifications: true })
    const mails = (await noteMails()).slice(before)
    expect(mails.map((m) => m.to)).toEqual([client.email])
    expect(mails[0]!.text).toContain("See you Tuesday")
  })

  it("mails everyone holding a place on the occurrence", async () => {
    await server.pool.query(
      `insert into visits (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, 'registered'), ($1, $2, $4, 'late_canceled')`,
      [businessId, classId, client.personId, otherPersonId]
    )
    const before = (await noteMails()).length
    await addNote(`/api/v2/desk/event_occurrences/${classId}/notes`, { note: "Room change", public: true, send_notifications: "true" })
    expect((await noteMails()).slice(before).map((m) => m.to)).toEqual([client.email])
  })
})
