import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { bigintArray, insertRows } from "../../shared/sql-rows.ts"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { InvoiceForPay, OccurrenceForPay, PAY_PERIOD_KINDS, PayRate, PayRateTier, PayRow, type PayState } from "./model.ts"

/** A pay to record; `on conflict do nothing` keeps service and sale pays exactly-once. */
// A stored pay's columns less those the database and the review set.
const { id: _id, pay_state: _state, recorded_at: _recorded, reviewed_at: _reviewed, reviewed_by_staff_member_id: _by, ...recorded } = PayRow.fields
const PayInsert = Schema.Struct({ ...recorded, recorded_at: Schema.Date })
export type PayInsert = typeof PayInsert.Type

export interface PayFilters {
  readonly state?: PayState | undefined
  /** A date inside the pay period. */
  readonly period?: string | undefined
}

const utc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
const payColumns = `id, pay_type, pay_state, staff_member_id, service_id, event_occurrence_id, invoice_id, description,
  base_cents::float8 as base_cents, per_head_cents::float8 as per_head_cents, tiered_cents::float8 as tiered_cents,
  final_cents::float8 as final_cents, service_hours::float8 as service_hours,
  pay_period_start::text as pay_period_start, pay_period_end::text as pay_period_end,
  ${utc("recorded_at")} as recorded_at, ${utc("reviewed_at")} as reviewed_at, reviewed_by_staff_member_id`

const RateRow = Schema.Struct({ staff_member_id: Schema.Number, service_id: Schema.NullOr(Schema.Number), ...PayRate.fields })
const Business = Schema.Struct({ businessId: Schema.Number })
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const ByIds = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number) })
const Id = Schema.Struct({ id: Schema.Number })
const Owner = Schema.Struct({ table: Schema.Literals(["pays", "staff_members", "invoices"]), id: Schema.Number })
const Listed = Schema.Struct({ businessId: Schema.NullOr(Schema.Number), state: Schema.NullOr(Schema.String), period: Schema.NullOr(Schema.String) })
const PeriodRule = Schema.Struct({ kind: Schema.Literals(PAY_PERIOD_KINDS), anchor_date: Schema.NullOr(Schema.String) })
const CommissionRate = Schema.Struct({ staff_member_id: Schema.Number, basis_points: Schema.Number })

/**
 * What pays are computed from: occurrences and invoices with the facts their pays need, and the
 * business's rates, period rule, commission rates and time zone.
 */
const payInputs = (sql: SqlClient.SqlClient) => {
  const occurrences = SqlSchema.findAll({
    Request: ByIds,
    Result: Schema.Struct({ ...OccurrenceForPay.fields, staff_member_ids: Schema.Array(Schema.Number) }),
    execute: ({ businessId, ids }) => sql`
      select o.id, o.service_id, s.type as service_type, (o.start_at at time zone o.time_zone)::date::text as local_date,
             (extract(epoch from o.end_at - o.start_at) / 60)::float8 as duration_minutes,
             (select count(*)::int from visits v
               where v.business_id = o.business_id and v.event_occurrence_id = o.id and v.state = 'completed') as completed_visits,
             o.attendance_complete,
             coalesce((select array_agg(es.staff_member_id::int order by es.position, es.staff_member_id)
                         from event_occurrence_staff_members es
                        where es.business_id = o.business_id and es.event_occurrence_id = o.id), '{}') as staff_member_ids
        from event_occurrences o
        join services s on s.business_id = o.business_id and s.id = o.service_id
       where o.business_id = ${businessId} and o.id = any(${bigintArray(ids)})`
  })

  const rates = SqlSchema.findAll({
    Request: Business,
    Result: RateRow,
    execute: ({ businessId }) => sql`
      select r.staff_member_id, r.service_id, r.base_cents, r.per_head_cents, r.per_head_minimum, r.hourly_cents,
             coalesce((select json_agg(json_build_object('attendance_threshold', t.attendance_threshold, 'bonus_cents', t.bonus_cents)
                                       order by t.attendance_threshold)
                         from pay_rate_tiers t where t.business_id = r.business_id and t.pay_rate_id = r.id), '[]'::json) as tiers
        from pay_rates r where r.business_id = ${businessId}`
  })

  const periodRule = SqlSchema.findOneOption({
    Request: Business,
    Result: PeriodRule,
    execute: ({ businessId }) => sql`select kind, anchor_date::text as anchor_date from pay_period_rules where business_id = ${businessId}`
  })

  const invoices = SqlSchema.findAll({
    Request: ByIds,
    Result: InvoiceForPay,
    execute: ({ businessId, ids }) => sql`
      select i.id, i.state, i.invoice_number,
             (i.closed_at at time zone coalesce(l.time_zone, b.time_zone))::date::text as local_closed_date,
             i.commission_recipient_id, i.tip_recipient_id,
             -- Revenue is the live commissionable items' total less their tax (exclusive and inclusive).
             coalesce((select sum(it.total_cents - it.additional_tax_total_cents - it.included_tax_total_cents)
                         from invoice_items it
                        where it.business_id = i.business_id and it.invoice_id = i.id
                          and it.canceled_at is null and it.commissionable), 0)::float8 as commissionable_revenue_cents
        from invoices i
        join businesses b on b.id = i.business_id
        left join locations l on l.business_id = i.business_id and l.id = i.location_id
       where i.business_id = ${businessId} and i.id = any(${bigintArray(ids)})`
  })

  const commissionRates = SqlSchema.findAll({
    Request: Business,
    Result: CommissionRate,
    execute: ({ businessId }) => sql`select staff_member_id, basis_points from staff_commission_rates where business_id = ${businessId}`
  })

  const staff = SqlSchema.findAll({
    Request: ById,
    Result: Id,
    execute: ({ businessId, id }) => sql`select id from staff_members where business_id = ${businessId} and id = ${id}`
  })

  const zone = SqlSchema.findOne({
    Request: Business,
    Result: Schema.Struct({ time_zone: Schema.String }),
    execute: ({ businessId }) => sql`select time_zone from businesses where id = ${businessId}`
  })

  return {
    /** The business's time zone (its local dates place ad-hoc pays in a period). */
    timeZone: orDie((request: typeof Business.Type) => zone(request).pipe(Effect.map((row) => row.time_zone))),
    /** Occurrences with the facts their service pays need, and their staff in position order. */
    occurrences: orDie(occurrences),
    /** Every rate of the business with its tiers (a business has a handful of staff). */
    rates: orDie(rates),
    periodRule: orUndefined(periodRule),
    invoices: orDie(invoices),
    commissionRates: orDie(commissionRates),
    staffExists: orDie((request: typeof ById.Type) => staff(request).pipe(Effect.map((rows) => rows.length > 0)))
  }
}

/** The pay settings staff set up: rates with their tiers, the period rule, commission rates. */
const settingStatements = (sql: SqlClient.SqlClient) => {
  const insertedRate = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, rate: RateRow }),
    Result: Id,
    execute: ({ businessId, rate: { tiers: _, ...rate } }) => sql`insert into pay_rates ${sql.insert({ business_id: businessId, ...rate })} returning id`
  })
  const insertedTiers = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, payRateId: Schema.Number, tiers: Schema.Array(PayRateTier) }),
    execute: ({ businessId, payRateId, tiers }) => {
      const rows = insertRows(tiers.map((tier) => ({ business_id: businessId, pay_rate_id: payRateId, ...tier })))
      return rows ? sql`insert into pay_rate_tiers ${sql.insert(rows)}` : Effect.void
    }
  })
  const setPayPeriodRule = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, rule: PeriodRule }),
    execute: ({ businessId, rule }) =>
      sql`insert into pay_period_rules (business_id, kind, anchor_date) values (${businessId}, ${rule.kind}, ${rule.anchor_date}::date)
          on conflict (business_id) do update set kind = excluded.kind, anchor_date = excluded.anchor_date`
  })
  const setCommissionRate = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, staffMemberId: Schema.Number, basisPoints: Schema.Number }),
    execute: ({ businessId, staffMemberId, basisPoints }) =>
      sql`insert into staff_commission_rates (business_id, staff_member_id, basis_points) values (${businessId}, ${staffMemberId}, ${basisPoints})
          on conflict (business_id, staff_member_id) do update set basis_points = excluded.basis_points, updated_at = now()`
  })
  /** A staff member's rate (for a service, or their default) with its tiers; answers its id. */
  const insertRate = (request: { readonly businessId: number; readonly rate: typeof RateRow.Type }) =>
    Effect.gen(function* () {
      const { id } = yield* insertedRate(request)
      yield* insertedTiers({ businessId: request.businessId, payRateId: id, tiers: request.rate.tiers })
      return id
    })

  return {
    insertRate: orDie(insertRate),
    /** The business's one pay period rule (without one it pays semimonthly). */
    setPayPeriodRule: orDie(setPayPeriodRule),
    setCommissionRate: orDie(setCommissionRate)
  }
}

/** Pays themselves: recorded exactly once, listed, found by id across businesses, reviewed. */
const payStatements = (sql: SqlClient.SqlClient) => {
  const stamped = (pay: PayInsert) => ({ ...pay, updated_at: pay.recorded_at, created_at: pay.recorded_at })
  const insertedPays = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, pays: Schema.Array(PayInsert) }),
    Result: Id,
    execute: ({ businessId, pays }) => {
      const rows = insertRows(pays.map((pay) => ({ business_id: businessId, ...stamped(pay) })))
      return rows ? sql`insert into pays ${sql.insert(rows)} on conflict do nothing returning id` : Effect.succeed([])
    }
  })
  const insertedPay = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, pay: PayInsert }),
    Result: PayRow,
    execute: ({ businessId, pay }) =>
      sql`insert into pays ${sql.insert({ business_id: businessId, ...stamped(pay) })} returning ${sql.literal(payColumns)}`
  })

  const listed = SqlSchema.findAll({
    Request: Listed,
    Result: Schema.Struct({ business_id: Schema.Number, ...PayRow.fields }),
    execute: ({ businessId, state, period }) => sql`
      select business_id, ${sql.literal(payColumns)} from pays
       where (${businessId}::bigint is null or business_id = ${businessId})
         and (${state}::text is null or pay_state = ${state})
         and (${period}::date is null or ${period}::date between pay_period_start and pay_period_end)
       order by business_id, pay_period_start, id`
  })

  // Ids come from one identity sequence per table, so an id alone names its business (the CLI's
  // commands without --business).
  const owner = SqlSchema.findAll({
    Request: Owner,
    Result: Schema.Struct({ business_id: Schema.Number }),
    execute: ({ table, id }) => sql`select business_id from ${sql(table)} where id = ${id}`
  })

  const lockedPay = SqlSchema.findOneOption({
    Request: ById,
    Result: PayRow,
    execute: ({ businessId, id }) => sql`select ${sql.literal(payColumns)} from pays where business_id = ${businessId} and id = ${id} for update`
  })

  const reviewed = SqlSchema.findOne({
    Request: Schema.Struct({ ...ById.fields, state: Schema.Literals(["approved", "denied"]), by: Schema.Number, at: Schema.Date }),
    Result: PayRow,
    execute: ({ businessId, id, state, by, at }) => sql`
      update pays set pay_state = ${state}, reviewed_at = ${at}, reviewed_by_staff_member_id = ${by}, updated_at = ${at}
       where business_id = ${businessId} and id = ${id} and pay_state = 'pending'
       returning ${sql.literal(payColumns)}`
  })

  return {
    /** Records pays and answers how many; one already recorded for the same occurrence (or invoice) and staff member is left as it is. */
    insertPays: orDie((request: Parameters<typeof insertedPays>[0]) =>
      request.pays.length === 0 ? Effect.succeed(0) : insertedPays(request).pipe(Effect.map((rows) => rows.length))
    ),
    /** Adds one pay (ad hoc or tip) and answers it. */
    insertPay: orDie(insertedPay),
    /** The business of a pay, staff member or invoice id, when exactly one has it. */
    businessOf: orDie((request: typeof Owner.Type) =>
      owner(request).pipe(Effect.map((rows) => (rows.length === 1 ? rows[0]!.business_id : undefined)))
    ),
    /** Pays of a business (all businesses when null), by period. */
    list: orDie(({ businessId, state, period }: { readonly businessId: number | null } & PayFilters) =>
      listed({ businessId, state: state ?? null, period: period ?? null })
    ),
    lockPay: orUndefined(lockedPay),
    review: orDie(reviewed)
  }
}

/** The only SQL of staff pay, by concern. */
const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return { ...settingStatements(sql), ...payInputs(sql), ...payStatements(sql) }
})

export class StaffPayRepo extends Context.Service<StaffPayRepo, Effect.Success<typeof make>>()("studio/StaffPayRepo") {
  static readonly layer = Layer.effect(StaffPayRepo)(make)
}
