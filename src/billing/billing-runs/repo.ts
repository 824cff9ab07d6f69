import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { BusinessRow } from "../../shared/request-context.ts"

/**
 * Membership billing periods (sql/migrations/0020): the claim of a period, its charge attempts
 * and its outcome, and the membership plans the sweep looks at.
 */
const Id = Schema.Struct({ id: Schema.Number })

export const MembershipRow = Schema.Struct({
  id: Schema.Number,
  plan_product_id: Schema.Number,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  price_cents: Schema.Number,
  start_date: Schema.String,
  end_date: Schema.NullOr(Schema.String),
  staff_member_id: Schema.NullOr(Schema.Number),
  invoice_interval_count: Schema.Number,
  invoice_interval_unit: Schema.Literals(["weekly", "monthly", "yearly"]),
  commitment_length: Schema.NullOr(Schema.Number),
  commitment_unit: Schema.NullOr(Schema.Literals(["day", "week", "month", "year"])),
  stop_renewing_after_commitment: Schema.Boolean,
  payer_id: Schema.Number,
  last_period_start: Schema.NullOr(Schema.String),
  unresolved: Schema.Boolean
})
export type MembershipRow = typeof MembershipRow.Type

export const PeriodRow = Schema.Struct({
  id: Schema.Number,
  plan_id: Schema.Number,
  period_start: Schema.String,
  invoice_id: Schema.NullOr(Schema.Number),
  person_id: Schema.Number,
  state: Schema.Literals(["open", "paid", "failed"]),
  attempts: Schema.Number,
  next_attempt_at: Schema.NullOr(Schema.Date)
})
export type PeriodRow = typeof PeriodRow.Type

/** Billing periods: claimed once per plan and period, tied to their invoice, locked and recorded by the charge. */
const periodStatements = (sql: SqlClient.SqlClient) => {
  const claim = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, planId: Schema.Number, periodStart: Schema.String, personId: Schema.Number, now: Schema.Date }),
    Result: Id,
    execute: (r) =>
      sql`insert into membership_billing_periods (business_id, plan_id, period_start, person_id, created_at, updated_at)
          values (${r.businessId}, ${r.planId}, ${r.periodStart}::date, ${r.personId}, ${r.now}, ${r.now})
          on conflict (business_id, plan_id, period_start) do nothing
          returning id`
  })
  const setInvoice = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, invoiceId: Schema.Number }),
    execute: (r) => sql`update membership_billing_periods set invoice_id = ${r.invoiceId} where business_id = ${r.businessId} and id = ${r.id}`
  })
  const lock = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: PeriodRow,
    execute: (r) =>
      sql`select id, plan_id, period_start::text as period_start, invoice_id, person_id, state, attempts, next_attempt_at
          from membership_billing_periods where business_id = ${r.businessId} and id = ${r.id} for update`
  })
  const record = SqlSchema.void({
    Request: Schema.Struct({
      businessId: Schema.Number,
      id: Schema.Number,
      state: PeriodRow.fields.state,
      attempts: Schema.Number,
      nextAttemptAt: Schema.NullOr(Schema.Date),
      now: Schema.Date
    }),
    execute: (r) =>
      sql`update membership_billing_periods set state = ${r.state}, attempts = ${r.attempts}, next_attempt_at = ${r.nextAttemptAt}, updated_at = ${r.now}
          where business_id = ${r.businessId} and id = ${r.id}`
  })
  /** Answers the period's id, or undefined when another run claimed it first. */
  const claimed = (request: Parameters<typeof claim>[0]) => Effect.map(claim(request), Option.map((row) => row.id))
  return {
    /** Inserts the period's row; answers its id, or undefined when another run claimed it first. */
    claim: orUndefined(claimed),
    setInvoice: orDie(setInvoice),
    /** The period, its row locked until the transaction ends (one charge run at a time). */
    lock: orUndefined(lock),
    record: orDie(record)
  }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // A membership is billed when it was sold through an invoice (the first invoice naming it is
  // its sale; that invoice's payer pays the renewals), is neither canceled nor deactivated, and
  // its product has an invoice interval.
  const MEMBERSHIPS = (businessId: number | null) => sql`
    select p.business_id, p.id, p.plan_product_id, p.name, p.description, p.price_cents, p.start_date::text as start_date,
           p.end_date::text as end_date, p.staff_member_id, pp.invoice_interval_count, pp.invoice_interval_unit,
           pp.commitment_length, pp.commitment_unit, pp.stop_renewing_after_commitment, sale.person_id as payer_id,
           (select max(m.period_start)::text from membership_billing_periods m where m.business_id = p.business_id and m.plan_id = p.id) as last_period_start,
           exists (select 1 from membership_billing_periods m where m.business_id = p.business_id and m.plan_id = p.id and m.state = 'open') as unresolved
      from plans p
      join plan_products pp on pp.business_id = p.business_id and pp.id = p.plan_product_id
      join lateral (
        select i.person_id from invoice_item_recipients r
          join invoice_items it on it.business_id = r.business_id and it.id = r.invoice_item_id
          join invoices i on i.business_id = it.business_id and i.id = it.invoice_id
         where r.business_id = p.business_id and r.plan_id = p.id
         order by i.id limit 1) sale on true
     where p.type = 'Membership' and pp.invoice_interval_unit is not null and pp.invoice_interval_count is not null
       and p.canceled_at is null and p.deactivated_at is null and not p.is_complimentary
       and (p.end_date is null or p.end_date >= p.start_date)
       ${businessId === null ? sql`` : sql`and p.business_id = ${businessId}`}`

  const businesses = SqlSchema.findAll({
    Request: Schema.Struct({}),
    Result: BusinessRow,
    execute: () =>
      sql`select b.id, b.subdomain, b.name, b.time_zone, b.currency_code, b.default_locale from businesses b
          where b.id in (select m.business_id from (${MEMBERSHIPS(null)}) m) order by b.id`
  })
  const business = SqlSchema.findOneOption({
    Request: Schema.Struct({ id: Schema.Number }),
    Result: BusinessRow,
    execute: ({ id }) => sql`select id, subdomain, name, time_zone, currency_code, default_locale from businesses where id = ${id}`
  })
  const memberships = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number }),
    Result: MembershipRow,
    execute: ({ businessId }) => sql`${MEMBERSHIPS(businessId)} order by p.id`
  })
  const planPeople = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, planId: Schema.Number }),
    Result: Schema.Struct({ person_id: Schema.Number }),
    execute: (r) =>
      sql`select person_id from plan_people where business_id = ${r.businessId} and plan_id = ${r.planId} order by is_primary desc, person_id`
  })
  const failedPayments = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, invoiceId: Schema.Number }),
    Result: Schema.Struct({ n: Schema.Number }),
    execute: (r) => sql`select count(*)::int as n from payments where business_id = ${r.businessId} and invoice_id = ${r.invoiceId} and state = 'failed'`
  })

  const peopleOf = (request: Parameters<typeof planPeople>[0]) => Effect.map(planPeople(request), (rows) => rows.map((row) => row.person_id))
  const failedCount = (request: Parameters<typeof failedPayments>[0]) => Effect.map(failedPayments(request), (row) => row.n)

  return {
    /** Businesses with at least one billed membership. */
    businesses: orDie(businesses),
    business: orUndefined(business),
    memberships: orDie(memberships),
    ...periodStatements(sql),
    /** The plan's people, by id. */
    planPeople: orDie(peopleOf),
    /** How many failed payments the invoice has. */
    failedPayments: orDie(failedCount)
  }
})

export class BillingRunsRepo extends Context.Service<BillingRunsRepo, Effect.Success<typeof make>>()("studio/BillingRunsRepo") {
  static readonly layer = Layer.effect(BillingRunsRepo)(make)
}
