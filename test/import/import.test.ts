import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seedDemo } from "../../src/tools/demo/seed.ts"
import { importBusiness } from "../../src/tools/import/service.ts"
import { verifyPassword } from "../../src/access/passwords.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ dataDir: `.data/test/import-${process.pid}-${Date.now()}` })
})
afterAll(async () => server?.close())

const run = <A, E>(effect: Effect.Effect<A, E, any>) => server.runtime.runPromiseExit(effect)

const document = (subdomain: string) => ({
  business: { subdomain, name: "Nordic Yoga", time_zone: "Europe/Stockholm", currency_code: "SEK", default_locale: "sv" },
  locations: [
    { key: "city", name: "City", time_zone: "Europe/Stockholm" },
    { key: "hidden", name: "Back Office", show_in_client_mode: false }
  ],
  custom_fields: [{ name: "Level", data_type: "select", options: ["Beginner", "Advanced"] }],
  staff: [{ email: `owner@${subdomain}.test`, first_name: "Olga", last_name: "Owner", role: "primary_owner", password: "s3cret-pass" }],
  clients: [
    {
      email: `parent@${subdomain}.test`,
      first_name: "Pia",
      last_name: "Parent",
      location: "city",
      waivers: [{ name: "Adult waiver", accepted: true }, { name: "Sauna waiver", signing_url: "https://sign.example.test/sauna" }],
      dependents: [{ first_name: "Kid", last_name: "Parent", waivers: [{ name: "Minor waiver", type: "GuardianWaiver" as const, accepted: true }] }]
    }
  ],
  make_up_reasons: ["Illness", "Travel"]
})

describe("import", () => {
  it("creates the business and everything in it, visible through the API", async () => {
    const exit = await run(importBusiness(document("nordic")))
    expect(Exit.isSuccess(exit)).toBe(true)
    const business = await server.pool.query("select id from businesses where subdomain = 'nordic'")
    const id = business.rows[0].id
    const counts = await server.pool.query(
      `select (select count(*) from locations where business_id = $1)::int as locations,
              (select count(*) from people where business_id = $1)::int as people,
              (select count(*) from staff_members where business_id = $1)::int as staff,
              (select count(*) from person_relationships where business_id = $1)::int as relationships,
              (select count(*) from custom_field_options where business_id = $1)::int as options`,
      [id]
    )
    expect(counts.rows[0]).toEqual({ locations: 2, people: 3, staff: 1, relationships: 1, options: 2 })
    const hash = await server.pool.query("select password_hash from accounts where email = 'owner@nordic.test'")
    expect(await verifyPassword("s3cret-pass", hash.rows[0].password_hash)).toBe(true)
    const waivers = await server.pool.query(
      `select w.name, w.type, w.accepted, w.signing_url, s.first_name as signer, p.first_name as person
       from waivers w join people p on p.id = w.person_id left join people s on s.id = w.signer_id
       where w.business_id = $1 order by w.id`,
      [id]
    )
    expect(waivers.rows).toEqual([
      { name: "Adult waiver", type: "Waiver", accepted: true, signing_url: null, signer: "Pia", person: "Pia" },
      { name: "Sauna waiver", type: "Waiver", accepted: false, signing_url: "https://sign.example.test/sauna", signer: null, person: "Pia" },
      { name: "Minor waiver", type: "GuardianWaiver", accepted: true, signing_url: null, signer: "Pia", person: "Kid" }
    ])
    const reasons = await server.pool.query(`select name from make_up_reasons where business_id = $1 order by position`, [id])
    expect(reasons.rows.map((row) => row.name)).toEqual(["Illness", "Travel"])

    const front = await server.request("GET", "/api/v2/front/business?client_id=none", { host: `nordic.${TEST_BASE_DOMAIN}` })
    expect(front.status).toBe(401)
  })

  it("is all or nothing: a taken subdomain or an invalid document writes nothing", async () => {
    const before = await server.pool.query("select count(*)::int as n from accounts")
    const taken = await run(importBusiness(document("nordic")))
    expect(Exit.isFailure(taken)).toBe(true)

    const invalid = document("broken")
    invalid.clients[0]!.location = "nowhere"
    const failed = await run(importBusiness(invalid))
    expect(Exit.isFailure(failed)).toBe(true)
    expect(JSON.stringify(failed)).toContain("nowhere")
    const dangling = await run(
      importBusiness({
        ...document("broken"),
        events: [{ service: "nope", frequency: "once", start_date: "2026-12-01", start_time: "09:00", end_time: "10:00" }]
      })
    )
    expect(JSON.stringify(dangling)).toContain('no service with key \\"nope\\"')

    const after = await server.pool.query("select count(*)::int as n from accounts")
    expect(after.rows[0].n).toBe(before.rows[0].n)
    expect((await server.pool.query("select 1 from businesses where subdomain = 'broken'")).rowCount).toBe(0)
  })
})

describe("the demo business", () => {
  it("is seeded once, with working tokens limited to it", async () => {
    const first = await server.runtime.runPromise(seedDemo)
    const second = await server.runtime.runPromise(seedDemo)
    expect(second).toEqual(first)
    expect((await server.pool.query("select count(*)::int as n from businesses where subdomain = 'demo'")).rows[0].n).toBe(1)

    const locations = await server.request("GET", "/api/v2/desk/locations", { token: first.ownerToken })
    expect(locations.status).toBe(200)
    expect(locations.json.locations).toHaveLength(2)
    expect(new Set(locations.json.locations.map((l: { timezone: string }) => l.timezone)).size).toBe(2)
    const business = await server.request("GET", "/api/v2/front/business?client_id=demo-app")
    expect(business.json.businesses[0].subdomain).toBe("demo")
    const clientView = await server.request("GET", "/api/v2/front/locations", { token: first.clientToken })
    expect(clientView.status).toBe(200)
    expect((await server.request("GET", "/api/v2/desk/locations", { token: first.clientToken })).status).toBe(403)
    // The same token on another business's host is refused.
    const elsewhere = await server.request("GET", "/api/v2/desk/business", { host: `nordic.${TEST_BASE_DOMAIN}`, token: first.ownerToken })
    expect(elsewhere.status).toBe(401)

    const people = await server.pool.query(
      `select (select count(*) from people p join businesses b on b.id = p.business_id where b.subdomain = 'demo')::int as people,
              (select count(*) from staff_members s join businesses b on b.id = s.business_id where b.subdomain = 'demo')::int as staff`
    )
    expect(people.rows[0].staff).toBe(5)
    expect(people.rows[0].people).toBeGreaterThanOrEqual(55)
  })
})
