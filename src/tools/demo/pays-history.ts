import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { createSalePays, createServicePays } from "../../billing/staff-pay/service.ts"
import { localDateAt } from "../../shared/zoned-time.ts"

/**
 * The demo's pays, written directly (no jobs) and deterministically from the document's rates
 * (pay-rates.ts): a service pay per instructor of every past session whose attendance was
 * taken, and a commission pay for Ines on every third closed invoice (she is made its commission
 * recipient). Pays of pay periods that ended are approved by the owner; the current period's
 * are pending. Seeded only while the business has no pays.
 */
export const seedDemoPays = (businessId: number, nowMs: number, ownerStaffId: number | null) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
      SqlSchema.findAll({ Request: Schema.Void, Result: Schema.Struct({ id: Schema.Number }), execute: () => statement })(undefined).pipe(
        Effect.map((rows) => rows.map((row) => row.id))
      )
    if ((yield* ids(sql`select id from pays where business_id = ${businessId} limit 1`)).length > 0) return { pays: 0 }
    const now = new Date(nowMs)
    yield* sql`
      update invoices i set commission_recipient_id = sm.id, updated_at = ${now}
        from staff_members sm join people p on p.business_id = sm.business_id and p.id = sm.person_id
       where i.business_id = ${businessId} and sm.business_id = i.business_id and p.email = 'ines@demo.test'
         and i.state = 'closed' and i.commission_recipient_id is null and i.invoice_number::bigint % 3 = 0`
    const occurrences = yield* ids(sql`select id from event_occurrences where business_id = ${businessId} and attendance_complete order by id`)
    const invoices = yield* ids(sql`select id from invoices where business_id = ${businessId} and state = 'closed' and commission_recipient_id is not null`)
    const pays = (yield* createServicePays(businessId, occurrences, now)) + (yield* createSalePays(businessId, invoices, now))
    if (ownerStaffId !== null) {
      const [zone] = yield* SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ time_zone: Schema.String }),
        execute: () => sql`select time_zone from businesses where id = ${businessId}`
      })(undefined)
      const today = localDateAt(nowMs, zone?.time_zone ?? "UTC")
      yield* sql`update pays set pay_state = 'approved', reviewed_at = ${now}, reviewed_by_staff_member_id = ${ownerStaffId}, updated_at = ${now}
                  where business_id = ${businessId} and pay_state = 'pending' and pay_period_end < ${today}::date`
    }
    return { pays }
  })
