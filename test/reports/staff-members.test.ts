import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { staffMembersCatalog } from "../../reports/catalog/staff-members.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createBusiness, createCustomField, createLocation, createPerson, createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"
import { rowsOf, reportQuery } from "./support.ts"
import { createService } from "../schedule/fixtures.ts"

/**
 * staff_members over HTTP: every detail field, summary field and grouping on staff
 * built in PostgreSQL (a demoted and a deleted staff member among them), the event counts
 * agreeing with event_occurrence_staff_members, franchise scoping, and changes reaching the
 * report through the incremental sync. Schedule rows are written straight to SQL, as in
 * schedule-http.test.ts; the address and custom field values through the Core API.
 */

const ZONE = "America/Los_Angeles"

let server: TestServer
const dataDir = path.resolve(`.data/test/reports-staff-${process.pid}`)
const reportsDir = path.join(dataDir, "reports")
let crew: { id: number; subdomain: string }
let holding: { id: number; subdomain: string }
let east: { id: number; subdomain: string }
const tokens: Record<string, string> = {}
type Person = Awaited<ReturnType<typeof createPerson>>
let olive: Person
let ivy: Person
let tom: Person
let dee: Person
let del: Person
let home: { id: number; name: string }
let shirt: { id: number }
let newsletter: { id: number }
let serviceId: number

const query = (resource: string, attributes: unknown, options: { host?: string; token?: string } = {}) =>
  reportQuery(server.request, resource, attributes, { token: options.token ?? tokens.owner!, host: `${options.host ?? "crew"}.${TEST_BASE_DOMAIN}` })


const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: server.databaseUrl, dir: reportsDir, mode })

const insertOccurrence = async (
  businessId: number,
  fields: { service_id: number; start_at: string; state?: string; attendance_complete?: boolean; staff: Array<number> }
) => {
  const end = new Date(Date.parse(fields.start_at) + 3_600_000).toISOString()
  const { rows } = await server.pool.query(
    `insert into event_occurrences (business_id, service_id, name, start_at, end_at, time_zone, state, attendance_complete)
     values ($1, $2, 'Class', $3, $4, $5, $6, $7) returning id`,
    [businessId, fields.service_id, fields.start_at, end, ZONE, fields.state ?? "active", fields.attendance_complete ?? false]
  )
  const id = Number(rows[0].id)
  for (const [position, staffMemberId] of fields.staff.entries()) {
    await server.pool.query(
      `insert into event_occurrence_staff_members (business_id, event_occurrence_id, staff_member_id, position) values ($1, $2, $3, $4)`,
      [businessId, id, staffMemberId, position]
    )
  }
  return id
}

// ---------------------------------------------------------------------------------------------
// "Today" in the business's zone, and the meanings the tests hold the report to

const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: ZONE, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date())
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000
const daysBetween = (from: string, to: string) => dayNumber(to) - dayNumber(from)
const ageOn = (birthdate: string, on: string) => {
  const [by, bm, bd] = birthdate.split("-").map(Number) as [number, number, number]
  const [y, m, d] = on.split("-").map(Number) as [number, number, number]
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0)
}
const daysUntilBirthday = (birthdate: string, on: string) => {
  const [, bm, bd] = birthdate.split("-")
  const year = Number(on.slice(0, 4))
  const thisYear = `${year}-${bm}-${bd}`
  return thisYear >= on ? daysBetween(on, thisYear) : daysBetween(on, `${year + 1}-${bm}-${bd}`)
}
const tenureGroup = (days: number) =>
  days < 30 ? "0_month" : days < 90 ? "1_quarter" : days < 365 ? "2_year" : days < 730 ? "3_two_years" : days < 1095 ? "4_three_years" : "5_over_three_years"

const IVY_BIRTHDATE = "1990-03-14"
const IVY_SINCE = "2024-01-09" // created 2024-01-10T03:00Z: still the 9th in Los Angeles

beforeAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true })
  server = await startTestServer({ dataDir })
  const pool = server.pool
  crew = await createBusiness(pool, { subdomain: "crew", name: "Crew Studio", time_zone: ZONE })
  holding = await createBusiness(pool, { subdomain: "holding", name: "Holding" })
  east = await createBusiness(pool, { subdomain: "east", name: "East", franchise_parent_id: holding.id })

  olive = await createPerson(pool, crew.id, { first_name: "Olive", last_name: "Owner", role: "owner", email: "olive@example.test" })
  tokens.owner = await createToken(pool, olive.accountId, crew.id)
  const holdingOwner = await createPerson(pool, holding.id, { first_name: "Hal", last_name: "Holder", role: "owner" })
  tokens.holdingOwner = await createToken(pool, holdingOwner.accountId, holding.id)
  await createPerson(pool, east.id, { first_name: "Eve", last_name: "East", role: "manager" })

  home = await createLocation(pool, crew.id, { name: "Home Base" })
  shirt = await createCustomField(pool, crew.id, { name: "Shirt size", data_type: "select", options: ["S", "M"] })
  newsletter = await createCustomField(pool, crew.id, { name: "Newsletter", data_type: "boolean" })

  ivy = await createPerson(pool, crew.id, { first_name: "Ivy", last_name: "Instructor", email: "ivy@example.test", role: "standard" })
  tom = await createPerson(pool, crew.id, { first_name: "Tom", last_name: "Trainer", email: "tom@example.test", role: "manager" })
  dee = await createPerson(pool, crew.id, { first_name: "Dee", last_name: "Demoted", email: "dee@example.test", role: "demoted" })
  del = await createPerson(pool, crew.id, { first_name: "Del", last_name: "Deleted", email: "del@example.test", role: "limited" })
  // A client who is no staff member: no row.
  await createPerson(pool, crew.id, { first_name: "Cal", last_name: "Client", email: "cal@example.test" })

  // Ivy's profile through the Core API: her stored address and custom field values.
  const m = Number((await pool.query("select id from custom_field_options where custom_field_id = $1 and value = 'M'", [shirt.id])).rows[0].id)
  const updated = await server.request("PUT", `/api/v2/desk/people/${ivy.personId}`, {
    token: tokens.owner,
    host: `crew.${TEST_BASE_DOMAIN}`,
    body: { person: { address: "9 Studio Lane, Springfield", custom_fields: [{ id: shirt.id, value: m }, { id: newsletter.id, value: true }] } }
  })
  expect(updated.status, updated.text).toBe(200)
  await pool.query(`update people set middle_name = 'Jane', phone = '555-0101', birthdate = $3, location_id = $4 where business_id = $1 and id = $2`, [
    crew.id,
    ivy.personId,
    IVY_BIRTHDATE,
    home.id
  ])
  await pool.query(`update staff_members set created_at = '2024-01-10T03:00:00Z' where business_id = $1 and id = $2`, [crew.id, ivy.staffMemberId])
  await pool.query(`update staff_members set hidden_in_client_mode = true where business_id = $1 and id = $2`, [crew.id, tom.staffMemberId])
  await pool.query(`update people set deleted_at = now() where business_id = $1 and id = $2`, [crew.id, del.personId])

  serviceId = await createService(pool, crew.id, { type: "GroupClass", name: "Flow" })
  // Ivy: two past classes (one with attendance taken), a canceled one (off the schedule), one ahead.
  await insertOccurrence(crew.id, { service_id: serviceId, start_at: "2024-06-03T16:00:00Z", attendance_complete: true, staff: [ivy.staffMemberId!] })
  await insertOccurrence(crew.id, { service_id: serviceId, start_at: "2024-06-04T16:00:00Z", staff: [ivy.staffMemberId!, dee.staffMemberId!] })
  await insertOccurrence(crew.id, { service_id: serviceId, start_at: "2024-06-05T16:00:00Z", state: "canceled", staff: [ivy.staffMemberId!] })
  const ahead = await insertOccurrence(crew.id, { service_id: serviceId, start_at: "2099-01-05T16:00:00Z", staff: [ivy.staffMemberId!, tom.staffMemberId!] })
  // Tom also takes a class as a client: a visit makes him also_client.
  const tomsClass = await insertOccurrence(crew.id, { service_id: serviceId, start_at: "2099-01-06T16:00:00Z", staff: [ivy.staffMemberId!] })
  await pool.query(`insert into visits (business_id, event_occurrence_id, person_id, state) values ($1, $2, $3, 'reserved')`, [crew.id, tomsClass, tom.personId])
  void ahead

  await sync("full")
})
afterAll(async () => {
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** The field lists the public API documents for staff_members. */
const SPEC = {
  detail:
    "address, age, also_client, attendance_not_completed_events, birthdate, business_id, business_name, business_subdomain, city, country_code, currency_code, custom_fields, days_until_birthday, email, first_name, franchise_id, full_name, future_events, home_location_id, home_location_name, key, last_name, middle_name, past_events, person_id, person_state, phone, postal_code, role, show_to_clients, staff_since_date, state_code, street_address, street_address2, tenure, tenure_group",
  summary:
    "also_client_count, business_id_summary, business_subdomain_summary, demoted_staff_count, person_count, total_attendance_not_completed_events, total_count, total_future_events, total_past_events",
  groupings:
    "age, also_client, business_id, business_name, business_subdomain, home_location_name, person_state, role, show_to_clients, staff_since_date, staff_since_month_start_date, staff_since_quarter_start_date, staff_since_week_mon_start_date, staff_since_week_sun_start_date, staff_since_year_start_date, tenure_group"
}
const words = (list: string) => list.split(", ").sort()

describe("the staff_members catalog", () => {
  it("lists the issue's 36 detail fields, 9 summary fields and 16 groupings", () => {
    expect([...staffMembersCatalog.detail.keys(), ...staffMembersCatalog.logical.keys()].sort()).toEqual(words(SPEC.detail))
    expect([...staffMembersCatalog.summary.keys()].sort()).toEqual(words(SPEC.summary))
    expect([...staffMembersCatalog.groupings.keys()].sort()).toEqual(words(SPEC.groupings))
    expect(words(SPEC.detail)).toHaveLength(36)
    expect(words(SPEC.summary)).toHaveLength(9)
    expect(words(SPEC.groupings)).toHaveLength(16)
  })
})

/** A staff row as the report shows it, with the fields relative to today worked out here. */
const expectedRow = (person: Person, fields: Record<string, unknown>) => {
  const since = (fields.staff_since_date as string | undefined) ?? today()
  const birthdate = (fields.birthdate as string | null | undefined) ?? null
  return {
    business_id: crew.id,
    business_name: "Crew Studio",
    business_subdomain: "crew",
    franchise_id: null,
    currency_code: "USD",
    key: `${crew.id}-${person.personId}`,
    address: null,
    age: birthdate === null ? null : ageOn(birthdate, today()),
    also_client: "f",
    attendance_not_completed_events: 0,
    birthdate,
    city: null,
    country_code: null,
    days_until_birthday: birthdate === null ? null : daysUntilBirthday(birthdate, today()),
    future_events: 0,
    home_location_id: null,
    home_location_name: null,
    middle_name: null,
    past_events: 0,
    person_id: person.personId,
    person_state: "active",
    phone: null,
    postal_code: null,
    show_to_clients: "t",
    staff_since_date: since,
    state_code: null,
    street_address: null,
    street_address2: null,
    tenure: daysBetween(since, today()),
    tenure_group: tenureGroup(daysBetween(since, today())),
    [`custom_field_${shirt.id}`]: null,
    [`custom_field_${newsletter.id}`]: null,
    ...fields
  }
}

describe("POST /desk/api/v3/reports/staff_members/queries", () => {
  const catalog = staffMembersCatalog

  it("returns every staff member past and present with every detail field, in its wire type", async () => {
    const names = [...catalog.detail.keys(), "custom_fields"]
    const response = await query("staff_members", { fields: names, sort: ["person_id+"], total_count: true })
    const fields = response.json.data.attributes.fields as Array<{ name: string; type: string; label?: string }>
    const instances = [`custom_field_${shirt.id}`, `custom_field_${newsletter.id}`]
    expect(fields.map((f) => f.name)).toEqual([...catalog.detail.keys(), ...instances])
    for (const field of fields.slice(0, catalog.detail.size)) expect(field.type, field.name).toBe(catalog.detail.get(field.name)!.type)
    expect(fields.slice(catalog.detail.size)).toEqual([
      { name: instances[0], type: "string", label: "Shirt size" },
      { name: instances[1], type: "boolean", label: "Newsletter" }
    ])
    // Olive, Ivy, Tom, Dee and Del: the client Cal is no staff member, the other businesses' staff are not in scope.
    expect(response.json.data.attributes.total_count).toBe(5)
    const [oliveRow, ivyRow, tomRow, deeRow, delRow] = rowsOf(response)
    expect(oliveRow).toEqual(expectedRow(olive, { email: "olive@example.test", first_name: "Olive", last_name: "Owner", full_name: "Olive Owner", role: "owner" }))
    expect(ivyRow).toEqual(
      expectedRow(ivy, {
        // The stored address is one text: all of it is the street address, its parts are not recorded.
        address: "9 Studio Lane, Springfield",
        street_address: "9 Studio Lane, Springfield",
        birthdate: IVY_BIRTHDATE,
        email: "ivy@example.test",
        first_name: "Ivy",
        middle_name: "Jane",
        last_name: "Instructor",
        full_name: "Ivy Instructor",
        home_location_id: home.id,
        home_location_name: "Home Base",
        phone: "555-0101",
        role: "standard",
        staff_since_date: IVY_SINCE,
        // Two past classes on the schedule (the canceled one is not), one of them without attendance; two ahead.
        past_events: 2,
        attendance_not_completed_events: 1,
        future_events: 2,
        [`custom_field_${shirt.id}`]: "M",
        [`custom_field_${newsletter.id}`]: "t"
      })
    )
    // Hidden in client mode; a visit of his own makes him a client too.
    expect(tomRow).toEqual(
      expectedRow(tom, { email: "tom@example.test", first_name: "Tom", last_name: "Trainer", full_name: "Tom Trainer", role: "manager", show_to_clients: "f", also_client: "t", future_events: 1 })
    )
    // Demoted: no longer working here, still listed with the classes given.
    expect(deeRow).toEqual(
      expectedRow(dee, {
        email: "dee@example.test",
        first_name: "Dee",
        last_name: "Demoted",
        full_name: "Dee Demoted",
        role: "demoted",
        show_to_clients: "f",
        past_events: 1,
        attendance_not_completed_events: 1
      })
    )
    // Deleted person: still listed, as deleted.
    expect(delRow).toEqual(
      expectedRow(del, { email: "del@example.test", first_name: "Del", last_name: "Deleted", full_name: "Del Deleted", role: "limited", person_state: "deleted" })
    )
  })

  it("counts events as event_occurrence_staff_members does for the same staff member", async () => {
    const now = new Date().toISOString()
    const staff = rowsOf(await query("staff_members", { fields: ["person_id", "past_events", "future_events", "attendance_not_completed_events"] }))
    for (const row of staff) {
      const mine = ["eq", "person_id", row.person_id as number]
      const onSchedule = ["eq", "service_state", "active"]
      const count = async (...filters: Array<unknown>) => {
        const response = await query("event_occurrence_staff_members", { fields: ["key"], filter: [mine, onSchedule, ...filters], total_count: true })
        expect(response.status, response.text).toBe(200)
        return response.json.data.attributes.total_count as number
      }
      expect(row.past_events, String(row.person_id)).toBe(await count(["lt", "start_at", now]))
      // No "gte" in the grammar: the future ones are the rest of those on the schedule.
      expect(row.future_events, String(row.person_id)).toBe((await count()) - (await count(["lt", "start_at", now])))
      expect(row.attendance_not_completed_events, String(row.person_id)).toBe(await count(["lt", "start_at", now], ["eq", "attendance_completed", false]))
    }
    // And in total, over every staff row of the schedule on it.
    const [totals] = rowsOf(await query("staff_members", { fields: ["total_past_events", "total_future_events"], group: "business_id" }))
    const eosm = (await query("event_occurrence_staff_members", { fields: ["key"], filter: ["eq", "service_state", "active"], total_count: true })).json.data
      .attributes.total_count as number
    expect((totals!.total_past_events as number) + (totals!.total_future_events as number)).toBe(eosm)
  })

  it("returns every summary field", async () => {
    const names = [...catalog.summary.keys()]
    const response = await query("staff_members", { fields: names, group: "business_id" })
    expect(response.json.data.attributes.fields.map((f: { name: string }) => f.name)).toEqual(["group_label", ...names])
    expect(rowsOf(response)).toEqual([
      {
        group_label: crew.id,
        business_id_summary: String(crew.id),
        business_subdomain_summary: "crew",
        total_count: 5,
        also_client_count: 1,
        demoted_staff_count: 1,
        person_count: 5,
        total_attendance_not_completed_events: 2,
        total_future_events: 3,
        total_past_events: 3
      }
    ])
  })

  it("groups by every grouping, each adding up to the rows", async () => {
    for (const [name, grouping] of catalog.groupings) {
      const response = await query("staff_members", { fields: ["total_count"], group: name })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
      expect(response.json.data.attributes.fields, name).toEqual([
        { name: "group_label", type: grouping.type },
        { name: "total_count", type: "integer" }
      ])
      const total = (response.json.data.attributes.rows as Array<[unknown, number]>).reduce((sum, row) => sum + row[1], 0)
      expect(total, name).toBe(5)
    }
    const groups = async (group: string, fields: Array<string> = ["total_count"]) =>
      rowsOf(await query("staff_members", { fields, group, sort: ["group_label+"] }))
    expect(await groups("role")).toEqual([
      { group_label: "demoted", total_count: 1 },
      { group_label: "limited", total_count: 1 },
      { group_label: "manager", total_count: 1 },
      { group_label: "owner", total_count: 1 },
      { group_label: "standard", total_count: 1 }
    ])
    expect(await groups("person_state")).toEqual([
      { group_label: "active", total_count: 4 },
      { group_label: "deleted", total_count: 1 }
    ])
    expect(await groups("show_to_clients")).toEqual([
      { group_label: "f", total_count: 2 },
      { group_label: "t", total_count: 3 }
    ])
    expect(await groups("also_client", ["total_count", "also_client_count"])).toEqual([
      { group_label: "f", total_count: 4, also_client_count: 0 },
      { group_label: "t", total_count: 1, also_client_count: 1 }
    ])
    expect(await groups("home_location_name")).toEqual([
      { group_label: "Home Base", total_count: 1 },
      { group_label: null, total_count: 4 }
    ])
    expect(await groups("age")).toEqual([
      { group_label: ageOn(IVY_BIRTHDATE, today()), total_count: 1 },
      { group_label: null, total_count: 4 }
    ])
    const ivyTenure = tenureGroup(daysBetween(IVY_SINCE, today()))
    expect(await groups("tenure_group")).toEqual(
      [
        { group_label: "0_month", total_count: 4 },
        { group_label: ivyTenure, total_count: 1 }
      ].sort((a, b) => a.group_label.localeCompare(b.group_label))
    )
    expect((await groups("staff_since_date")).at(0)).toEqual({ group_label: IVY_SINCE, total_count: 1 })
    // 9 January 2024 was a Tuesday.
    expect((await groups("staff_since_month_start_date")).at(0)).toEqual({ group_label: "2024-01-01", total_count: 1 })
    expect((await groups("staff_since_quarter_start_date")).at(0)).toEqual({ group_label: "2024-01-01", total_count: 1 })
    expect((await groups("staff_since_week_mon_start_date")).at(0)).toEqual({ group_label: "2024-01-08", total_count: 1 })
    expect((await groups("staff_since_week_sun_start_date")).at(0)).toEqual({ group_label: "2024-01-07", total_count: 1 })
    expect((await groups("staff_since_year_start_date")).at(0)).toEqual({ group_label: "2024-01-01", total_count: 1 })
    expect(await groups("business_subdomain")).toEqual([{ group_label: "crew", total_count: 5 }])
    expect(await groups("business_name")).toEqual([{ group_label: "Crew Studio", total_count: 5 }])
  })

  it("sorts by every detail and summary field, filters on them, and pages by key", async () => {
    let descending = false
    for (const name of catalog.detail.keys()) {
      descending = !descending
      const response = await query("staff_members", { fields: ["key"], sort: [`${name}${descending ? "-" : "+"}`], page: { limit: 2 } })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
    }
    for (const name of catalog.summary.keys()) {
      descending = !descending
      const response = await query("staff_members", { fields: ["total_count"], group: "role", sort: [`${name}${descending ? "-" : "+"}`] })
      expect(response.status, `${name}: ${response.text}`).toBe(200)
    }
    const names = async (filter: unknown) =>
      rowsOf(await query("staff_members", { fields: ["first_name"], filter, sort: ["first_name+"] })).map((r) => r.first_name)
    expect(await names(["eq", "role", "demoted"])).toEqual(["Dee"])
    expect(await names(["eq", "person_state", "deleted"])).toEqual(["Del"])
    expect(await names(["eq", "show_to_clients", false])).toEqual(["Dee", "Tom"])
    expect(await names(["gt", "past_events", 0])).toEqual(["Dee", "Ivy"])
    expect(await names(["eq", `custom_field_${shirt.id}`, "M"])).toEqual(["Ivy"])
    expect(await names(["contains", "street_address", "studio lane"])).toEqual(["Ivy"])
    expect(await names(["lt", "staff_since_date", "2025-01-01"])).toEqual(["Ivy"])
    // An enum filter must name one of its values.
    expect((await query("staff_members", { fields: ["key"], filter: ["eq", "role", "cook"] })).status).toBe(400)

    // Keyset pages of two walk every row once, by key.
    const seen: Array<unknown> = []
    let after: string | undefined
    for (;;) {
      const response = await query("staff_members", { fields: ["first_name"], page: { limit: 2, ...(after ? { starting_after: after } : {}) } })
      const rows = rowsOf(response)
      seen.push(...rows.map((r) => r.first_name))
      after = response.json.data.attributes.last_key
      if (!response.json.data.attributes.has_more) break
    }
    expect(seen).toEqual(["Olive", "Ivy", "Tom", "Dee", "Del"])
  })

  it("scopes a franchise holding to its franchisees, and refuses custom_fields there", async () => {
    const rows = rowsOf(await query("staff_members", { fields: ["business_subdomain", "franchise_id", "full_name", "role"], sort: ["full_name+"] }, { host: "holding", token: tokens.holdingOwner! }))
    expect(rows).toEqual([
      { business_subdomain: "east", franchise_id: holding.id, full_name: "Eve East", role: "manager" },
      { business_subdomain: "holding", franchise_id: holding.id, full_name: "Hal Holder", role: "owner" }
    ])
    const custom = await query("staff_members", { fields: ["custom_fields"] }, { host: "holding", token: tokens.holdingOwner! })
    expect(custom.status).toBe(400)
  })
})

describe("freshness", () => {
  it("reads the same rows on PostgreSQL as the full rebuild on DuckDB, and picks up changes in the incremental refresh", async () => {
    const pool = server.pool
    const fields = [...staffMembersCatalog.detail.keys(), "custom_fields"]
    const all = async () => rowsOf(await query("staff_members", { fields, sort: ["person_id+"] }))
    // Right after the full rebuild the refresh re-reads the rows written lately (the overlap)
    // on PostgreSQL and finds them equal to those DuckDB built: nothing to publish.
    expect((await sync("incremental")).outcome).toBe("unchanged")

    // Tom demoted (as the Core API writes it, moving updated_at), Ivy's newsletter answer
    // changed through the Core API, a class ahead given to Tom, a new staff member.
    await pool.query(`update staff_members set role = 'demoted', updated_at = now() where business_id = $1 and id = $2`, [crew.id, tom.staffMemberId])
    const changed = await server.request("PUT", `/api/v2/desk/people/${ivy.personId}`, {
      token: tokens.owner!,
      host: `crew.${TEST_BASE_DOMAIN}`,
      body: { person: { custom_fields: [{ id: newsletter.id, value: false }] } }
    })
    expect(changed.status, changed.text).toBe(200)
    await insertOccurrence(crew.id, { service_id: serviceId, start_at: "2099-02-01T16:00:00Z", staff: [tom.staffMemberId!] })
    const nia = await createPerson(pool, crew.id, { first_name: "Nia", last_name: "New", role: "limited" })
    // Olive buys a pack (holding a plan makes her a client too); Dee's person is hidden.
    const pack = await createPlanProduct(pool, crew.id, { kind: "pack", name: "Five classes" })
    await createPlan(pool, crew.id, pack.id, [olive.personId])
    await pool.query(`update people set hidden_at = now(), updated_at = now() where business_id = $1 and id = $2`, [crew.id, dee.personId])

    expect((await sync("incremental")).outcome).toBe("incremental")
    const rows = await all()
    expect(rows.map((r) => r.first_name)).toEqual(["Olive", "Ivy", "Tom", "Dee", "Del", "Nia"])
    const [oliveRow, ivyRow, tomRow, deeRow, , niaRow] = rows
    expect(oliveRow).toMatchObject({ also_client: "t", role: "owner" })
    expect(deeRow).toMatchObject({ person_state: "hidden", role: "demoted" })
    expect(tomRow).toMatchObject({ role: "demoted", show_to_clients: "f", future_events: 2 })
    expect(ivyRow).toMatchObject({ [`custom_field_${newsletter.id}`]: "f", [`custom_field_${shirt.id}`]: "M" })
    expect(niaRow).toMatchObject({ key: `${crew.id}-${nia.personId}`, role: "limited", staff_since_date: today(), tenure: 0, tenure_group: "0_month" })
    const [summary] = rowsOf(
      await query("staff_members", { fields: ["also_client_count", "demoted_staff_count", "total_count", "total_future_events"], group: "business_id" })
    )
    expect(summary).toMatchObject({ also_client_count: 2, demoted_staff_count: 2, total_count: 6, total_future_events: 4 })
    expect(rowsOf(await query("staff_members", { fields: ["total_count"], group: "person_state", sort: ["group_label+"] }))).toEqual([
      { group_label: "active", total_count: 4 },
      { group_label: "deleted", total_count: 1 },
      { group_label: "hidden", total_count: 1 }
    ])

    // Nothing changed since: only the watermark moves; a full rebuild then holds the same rows.
    expect((await sync("incremental")).outcome).toBe("unchanged")
    expect((await sync("full")).outcome).toBe("full")
    expect(await all()).toEqual(rows)
  })
})
