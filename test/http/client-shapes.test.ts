import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPlanProduct } from "../support/billing-factories.ts"
import { makeSettableClock } from "../support/clock.ts"
import { createCustomField, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN } from "../support/server.ts"
import { type Studio, setUpStudio, studioCallers } from "../support/studio.ts"
import { setTextValue } from "../people/fixtures.ts"

/**
 * Issue 30 §2 and §3: bodies the way client libraries wrap them, and the keys of the public
 * documentation's examples that real clients read (people's `person_custom_fields`; visits'
 * `status`, `event_occurrence` and, on `:id`, `person`; waitlist entries' `event_occurrence`
 * and `person`).
 */
const clock = makeSettableClock("2026-11-02T16:00:00Z")
let s: Studio
let field: number
let visitId: number
let occurrenceId: number
let entryId: number

const { desk, front } = studioCallers(() => s)

beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 1 })
  field = (await createCustomField(s.pool, s.business.id, { name: "Emergency contact", data_type: "text" })).id
  await setTextValue(s.pool, s.business.id, s.cleo.personId, field, "Charles, 555-0100")
  occurrenceId = s.yoga("2026-11-05").id
  const visit = await desk("POST", "/visits", { visit: { person_id: s.cleo.personId, event_occurrence_id: occurrenceId } })
  expect(visit.status, visit.text).toBe(201)
  visitId = visit.json.visits[0].id
  const entry = await desk("POST", "/waitlist_entries", { waitlist_entry: { person_id: s.otto.personId, event_occurrence_id: occurrenceId } })
  expect(entry.status, entry.text).toBe(201)
  entryId = entry.json.waitlist_entries[0].id
}, 180_000)
afterAll(async () => s?.server.close())

const embeddedOccurrence = () => ({
  id: occurrenceId,
  event_id: s.events.yoga,
  name: "Yoga",
  service_id: s.services.yoga,
  location_id: s.main,
  start_at: "2026-11-05T18:00:00Z",
  end_at: "2026-11-05T19:00:00Z",
  timezone: "America/Los_Angeles",
  state: "active"
})

describe("POST invoices/:id/invoice_items wrapped in invoice_item", () => {
  it("adds the plan product of {invoice_item: {plan_product}}, as JSON and as a form", async () => {
    const pack = (await createPlanProduct(s.pool, s.business.id, { kind: "pack", name: "Five classes", count: 5, price_cents: 10000 })).id
    const created = await desk("POST", "/invoices", { invoice: { payer_id: s.cleo.personId, plan_products: [{ id: pack }] } })
    expect(created.status, created.text).toBe(201)
    const invoice = created.json.invoices[0].id
    const wrapped = await desk("POST", `/invoices/${invoice}/invoice_items`, { invoice_item: { plan_product: { id: pack } } })
    expect(wrapped.status, wrapped.text).toBe(201)
    expect(wrapped.json.invoices[0].invoice_items).toHaveLength(2)
    const form = await s.server.request("POST", `/api/v2/front/invoices/${invoice}/invoice_items`, {
      token: s.cleo.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `invoice_item[plan_product][id]=${pack}`
    })
    expect(form.status, form.text).toBe(201)
    expect(form.json.invoices[0].invoice_items).toHaveLength(3)
    // The spec's bare form still works; both at once, or neither, is a translated 400.
    expect((await desk("POST", `/invoices/${invoice}/invoice_items`, { plan_product: { id: pack } })).status).toBe(201)
    const both = await desk("POST", `/invoices/${invoice}/invoice_items`, { plan_product: { id: pack }, invoice_item: { plan_product: { id: pack } } })
    expect(both.status).toBe(400)
    expect(both.json).toEqual({ errors: ["Send plan_product either alone or inside invoice_item, not both"] })
    const german = await s.server.request("POST", `/api/v2/desk/invoices/${invoice}/invoice_items`, {
      token: s.owner.token,
      headers: { "x-fd-locale": "de" },
      body: { plan_product: { id: pack }, invoice_item: { plan_product: { id: pack } } }
    })
    expect(german.json.errors[0]).toContain("nicht beides")
    const neither = await desk("POST", `/invoices/${invoice}/invoice_items`, {})
    expect(neither.status).toBe(400)
    expect(neither.json.errors).toEqual([expect.stringContaining("plan_product")])
  })
})

describe("person_custom_fields", () => {
  const expected = () => [{ id: field, custom_field_id: field, name: "Emergency contact", value: "Charles, 555-0100" }]

  it("is on people in client mode (me, :id), staff mode (:id, list) and the account's people", async () => {
    const me = await front("GET", "/people/me")
    expect(me.json.people[0].person_custom_fields).toEqual(expected())
    expect((await front("GET", `/people/${s.cleo.personId}`)).json.people[0].person_custom_fields).toEqual(expected())
    expect((await desk("GET", `/people/${s.cleo.personId}`)).json.people[0].person_custom_fields).toEqual(expected())
    const list = await desk("GET", "/people?per_page=100")
    const listed = list.json.people.find((p: { id: number }) => p.id === s.cleo.personId)
    expect(listed.person_custom_fields).toEqual(expected())
    expect(list.json.people.find((p: { id: number }) => p.id === s.otto.personId).person_custom_fields).toEqual([])
    const accountToken = await createToken(s.pool, s.cleo.accountId, null)
    const account = await s.server.request("GET", "/api/v2/account/people", { token: accountToken, host: TEST_BASE_DOMAIN })
    expect(account.status, account.text).toBe(200)
    const person = account.json.people.find((p: { id: number }) => p.id === s.cleo.personId)
    expect(person.person_custom_fields).toEqual(expected())
  })
})

describe("visits: status and the embedded event_occurrence (and person on :id)", () => {
  it("desk and front :id carry status, event_occurrence and person", async () => {
    for (const response of [await desk("GET", `/visits/${visitId}`), await front("GET", `/visits/${visitId}`)]) {
      expect(response.status, response.text).toBe(200)
      expect(response.json.visits[0]).toMatchObject({
        id: visitId,
        state: "registered",
        status: "registered",
        event_occurrence: embeddedOccurrence(),
        person: { id: s.cleo.personId, name: "Cleo Client", first_name: "Cleo", last_name: "Client", email: expect.any(String) }
      })
    }
  })

  it("desk occurrence visits and person visits (front and desk) carry status and event_occurrence", async () => {
    const lists = [
      await desk("GET", `/event_occurrences/${occurrenceId}/visits`),
      await desk("GET", `/people/${s.cleo.personId}/visits`),
      await front("GET", "/people/me/visits")
    ]
    for (const list of lists) {
      expect(list.status, list.text).toBe(200)
      const visit = list.json.visits.find((v: { id: number }) => v.id === visitId)
      expect(visit).toMatchObject({ status: "registered", event_occurrence: embeddedOccurrence() })
      expect(visit).not.toHaveProperty("person")
    }
  })
})

describe("waitlist entries: embedded event_occurrence and person", () => {
  it("in staff and client mode, lists and :id", async () => {
    const person = { id: s.otto.personId, name: "Otto Other", first_name: "Otto", last_name: "Other", email: expect.any(String) }
    const responses = [
      await desk("GET", `/waitlist_entries/${entryId}`),
      await desk("GET", `/event_occurrences/${occurrenceId}/waitlist_entries`),
      await desk("GET", `/people/${s.otto.personId}/waitlist_entries`),
      await front("GET", `/waitlist_entries/${entryId}`, undefined, s.otto.token),
      await front("GET", `/people/${s.otto.personId}/waitlist_entries`, undefined, s.otto.token)
    ]
    for (const response of responses) {
      expect(response.status, response.text).toBe(200)
      const entry = response.json.waitlist_entries.find((e: { id: number }) => e.id === entryId)
      expect(entry).toMatchObject({ event_occurrence: embeddedOccurrence(), person })
    }
  })
})

describe("GET /api/openapi.json", () => {
  it("documents the new keys", async () => {
    const response = await s.server.request("GET", "/api/openapi.json")
    const schemas = response.json.components.schemas as Record<string, { properties?: Record<string, unknown> }>
    const keys = (name: string) => Object.keys(schemas[name]?.properties ?? {})
    expect(keys("PersonFront")).toContain("person_custom_fields")
    expect(keys("PersonDesk")).toContain("person_custom_fields")
    expect(keys("PersonCustomFieldValue")).toEqual(["id", "custom_field_id", "name", "value"])
    expect(keys("VisitDetail")).toEqual(expect.arrayContaining(["status", "event_occurrence"]))
    expect(keys("VisitOne")).toEqual(expect.arrayContaining(["status", "event_occurrence", "person"]))
    expect(keys("WaitlistEntryFront")).toEqual(expect.arrayContaining(["event_occurrence", "person"]))
    expect(keys("WaitlistEntryDesk")).toEqual(expect.arrayContaining(["event_occurrence", "person"]))
  })
})
