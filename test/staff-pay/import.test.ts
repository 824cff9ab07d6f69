import { Cause, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ImportError } from "../../src/tools/import/errors.ts"
import { importBusiness } from "../../src/tools/import/service.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/** The import's `pay_rates` section: rates, tiers and commissions written; a bad row refused by its path, nothing written. */

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ dataDir: `.data/test/pay-rates-import-${process.pid}-${Date.now()}` })
}, 120_000)
afterAll(async () => server?.close())

const run = <A, E>(effect: import("effect").Effect.Effect<A, E, any>) => server.runtime.runPromiseExit(effect)

const document = (subdomain: string, payRates: ReadonlyArray<Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({
  ...extra,
  business: { subdomain, name: "Pay Yoga", time_zone: "Europe/Stockholm", currency_code: "SEK", default_locale: "sv" },
  staff: [
    { email: `owner@${subdomain}.test`, first_name: "Olga", last_name: "Owner", role: "primary_owner" },
    { email: `ida@${subdomain}.test`, first_name: "Ida", last_name: "Teacher", role: "standard" }
  ],
  services: [
    { key: "flow", name: "Flow", type: "GroupClass", duration_in_minutes: 60 },
    { key: "private", name: "Private", type: "Appointment", duration_in_minutes: 60, staff: [`ida@${subdomain}.test`] }
  ],
  pay_rates: payRates
})

const ratesOf = async (subdomain: string) =>
  (
    await server.pool.query(
      `select p.email, s.name as service, r.base_cents, r.per_head_cents, r.per_head_minimum, r.hourly_cents,
              (select json_agg(json_build_array(t.attendance_threshold, t.bonus_cents) order by t.attendance_threshold)
                 from pay_rate_tiers t where t.business_id = r.business_id and t.pay_rate_id = r.id) as tiers,
              c.basis_points
         from pay_rates r
         join businesses b on b.id = r.business_id
         join staff_members sm on sm.business_id = r.business_id and sm.id = r.staff_member_id
         join people p on p.business_id = sm.business_id and p.id = sm.person_id
         left join services s on s.business_id = r.business_id and s.id = r.service_id
         left join staff_commission_rates c on c.business_id = r.business_id and c.staff_member_id = r.staff_member_id and r.service_id is null
        where b.subdomain = $1 order by p.email, s.name nulls first`,
      [subdomain]
    )
  ).rows

describe("import pay_rates", () => {
  it("writes default and per-service rates, tiers and the commission", async () => {
    const exit = await run(
      importBusiness(
        document("payyoga", [
          { staff: "ida@payyoga.test", base_cents: 20000, hourly_cents: 50000, commission_basis_points: 750 },
          { staff: "IDA@payyoga.test", service: "flow", base_cents: 25000, per_head_cents: 1000, per_head_minimum: 8, tiers: [{ attendance: 15, bonus_cents: 5000 }, { attendance: 10, bonus_cents: 2000 }] }
        ])
      )
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    if (Exit.isSuccess(exit)) expect(exit.value.counts.pay_rates).toBe(2)
    expect(await ratesOf("payyoga")).toEqual([
      { email: "ida@payyoga.test", service: null, base_cents: 20000, per_head_cents: 0, per_head_minimum: 0, hourly_cents: 50000, tiers: null, basis_points: 750 },
      { email: "ida@payyoga.test", service: "Flow", base_cents: 25000, per_head_cents: 1000, per_head_minimum: 8, hourly_cents: 0, tiers: [[10, 2000], [15, 5000]], basis_points: null }
    ])
  })

  it("sets the business's pay period rule, and refuses a weekly one without its first day", async () => {
    const weekly = await run(importBusiness(document("weeklypay", [], { pay_period: { kind: "weekly", anchor_date: "2024-01-01" } })))
    expect(Exit.isSuccess(weekly)).toBe(true)
    const rule = await server.pool.query(
      `select r.kind, r.anchor_date::text from pay_period_rules r join businesses b on b.id = r.business_id where b.subdomain = 'weeklypay'`
    )
    expect(rule.rows).toEqual([{ kind: "weekly", anchor_date: "2024-01-01" }])
    const missing = await run(importBusiness(document("nofirstday", [], { pay_period: { kind: "biweekly" } })))
    expect(Exit.isFailure(missing)).toBe(true)
    if (Exit.isFailure(missing)) {
      expect((Cause.squash(missing.cause) as ImportError).messages.join("\n")).toContain("pay_period.anchor_date: a biweekly pay period needs the first day of one period")
    }
    const badDate = await run(importBusiness(document("baddate", [], { pay_period: { kind: "weekly", anchor_date: "2024-02-30" } })))
    expect(Exit.isFailure(badDate)).toBe(true)
    if (Exit.isFailure(badDate)) expect((Cause.squash(badDate.cause) as ImportError).messages.join("\n")).toContain("pay_period.anchor_date")
  })

  it("refuses bad rows, each named by its path, and writes nothing", async () => {
    const exit = await run(
      importBusiness(
        document("badpay", [
          { staff: "nobody@badpay.test", base_cents: 100 },
          { staff: "ida@badpay.test", service: "spin", base_cents: 100 },
          { staff: "ida@badpay.test", service: "flow", base_cents: -5, commission_basis_points: 100 },
          { staff: "ida@badpay.test", service: "flow", tiers: [{ attendance: 5, bonus_cents: 1 }, { attendance: 5, bonus_cents: 2 }] }
        ])
      )
    )
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const error = Cause.squash(exit.cause)
      expect(error).toBeInstanceOf(ImportError)
      const messages = (error as ImportError).messages.join("\n")
      expect(messages).toContain("pay_rates[2].base_cents")
      expect(messages).toContain("must be an integer from 0 to 100000000")
    }
    const second = await run(
      importBusiness(
        document("badpay", [
          { staff: "nobody@badpay.test", base_cents: 100 },
          { staff: "ida@badpay.test", service: "spin", base_cents: 100 },
          { staff: "ida@badpay.test", service: "flow", base_cents: 5, commission_basis_points: 100 },
          { staff: "ida@badpay.test", service: "flow", tiers: [{ attendance: 5, bonus_cents: 1 }, { attendance: 5, bonus_cents: 2 }] }
        ])
      )
    )
    expect(Exit.isFailure(second)).toBe(true)
    if (Exit.isFailure(second)) {
      const messages = (Cause.squash(second.cause) as ImportError).messages.join("\n")
      expect(messages).toContain("pay_rates[0].staff: no staff member with e-mail nobody@badpay.test in this document")
      expect(messages).toContain('pay_rates[1].service: no service with key "spin" in this document')
      expect(messages).toContain("pay_rates[2].commission_basis_points: a commission belongs to the staff member's default rate")
      expect(messages).toContain('pay_rates[3].service: pay_rates[2] already gives ida@badpay.test a rate for "flow"')
      expect(messages).toContain("pay_rates[3].tiers[1].attendance: attendance 5 is used twice")
    }
    expect((await server.pool.query(`select count(*)::int as n from businesses where subdomain = 'badpay'`)).rows[0].n).toBe(0)
  })
})
