import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { importBusiness } from "../../src/tools/import/service.ts"
import { createToken } from "../support/factories.ts"
import { TEST_BASE_DOMAIN, type TestServer, startTestServer } from "../support/server.ts"

/**
 * ACH forms of payment come from the import only: read-only records, numbers masked on the way
 * in (the whole numbers are in no table), shown with the spec's ACH fields.
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
}, 120_000)
afterAll(async () => server?.close())

const run = <A, E>(effect: Effect.Effect<A, E, any>) => server.runtime.runPromiseExit(effect)

const document = {
  business: { subdomain: "achyoga", name: "ACH Yoga", time_zone: "America/New_York", currency_code: "USD", default_locale: "en" },
  staff: [{ email: "owner@achyoga.test", first_name: "Olga", last_name: "Owner", role: "primary_owner" }],
  clients: [
    {
      email: "payer@achyoga.test",
      first_name: "Pat",
      last_name: "Payer",
      forms_of_payment: [
        { type: "ach", account_name: "Household", account_type: "checking", account_holder_type: "personal", account_number: "000123456789", routing_number: "110000000" },
        { type: "ach", account_name: "Studio LLC", account_type: "savings", account_holder_type: "business", account_number: "987654321", routing_number: "021000021", first_name: "Pat", last_name: "LLC", autobill: true }
      ]
    }
  ]
}

describe("ACH forms of payment from the import", () => {
  it("imports them masked, the marked one as autobill, and lists them with the ACH fields", async () => {
    const exit = await run(importBusiness(document))
    expect(Exit.isSuccess(exit), JSON.stringify(exit)).toBe(true)
    if (Exit.isSuccess(exit)) expect(exit.value.counts.forms_of_payment).toBe(2)
    const { rows } = await server.pool.query(
      `select b.id as business_id, p.id as person_id, s.account_id from businesses b join people p on p.business_id = b.id
       left join people s on s.business_id = b.id and s.email = 'owner@achyoga.test'
       where b.subdomain = 'achyoga' and p.email = 'payer@achyoga.test'`
    )
    const { business_id, person_id, account_id } = rows[0]
    const token = await createToken(server.pool, account_id, business_id)
    const list = await server.request("GET", `/api/v2/desk/people/${person_id}/form_of_payments`, { host: `achyoga.${TEST_BASE_DOMAIN}`, token })
    expect(list.status, list.text).toBe(200)
    expect(list.json.form_of_payments).toEqual([
      {
        id: expect.any(Number),
        type: "ach",
        first_name: "Pat",
        last_name: "Payer",
        autobill: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        account_name: "Household",
        account_type: "checking",
        account_holder_type: "personal",
        account_number: "********6789",
        routing_number: "*****0000"
      },
      expect.objectContaining({ type: "ach", last_name: "LLC", autobill: true, account_number: "*****4321", routing_number: "*****0021" })
    ])
    const dump = await server.pool.query(`select f::text as row from forms_of_payment f where business_id = $1`, [business_id])
    const text = dump.rows.map((row) => row.row).join("\n")
    for (const secret of ["000123456789", "110000000", "987654321", "021000021"]) expect(text).not.toContain(secret)
  })

  it("refuses bad ACH fields with their paths, and imports nothing", async () => {
    const bad = structuredClone(document) as any
    bad.business.subdomain = "achbad"
    bad.clients[0].email = "payer@achbad.test"
    bad.staff[0].email = "owner@achbad.test"
    bad.clients[0].forms_of_payment[0].routing_number = "12"
    bad.clients[0].forms_of_payment[1].account_type = "brokerage"
    const exit = await run(importBusiness(bad))
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toContain("forms_of_payment")
    expect((await server.pool.query(`select 1 from businesses where subdomain = 'achbad'`)).rowCount).toBe(0)
  })
})
