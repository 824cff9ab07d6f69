import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { visitPaidStatements } from "../../enrollment/visits/paid-statements.ts"
import { orDie } from "../../shared/statements.ts"
import { BusinessRow } from "../../shared/request-context.ts"
import { visitsLeft } from "../../shared/plan-rules.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The SQL that writes person plans, the only writer of `plans` rows in billing: insert with
 * people and terms, state changes (billing runs' end dates too), the cancel of what refunded or
 * voided invoice items sold, exhaustion after punches, delete, and the claim of ended plans for
 * their plan.ended announcement. Part of PlansRepo (repo.ts
 * spreads these methods in), kept apart so reads and writes each fit one file; same
 * conventions: every statement names `business_id`, writes run on the caller's connection.
 */
const Id = Schema.Struct({ id: Schema.Number })
const PlanIds = Schema.Struct({ businessId: Schema.Number, ids: Schema.Array(Schema.Number), now: Schema.Date })

export interface PlanInsert {
  readonly planProductId: number
  readonly type: "Pack" | "Membership" | "Prepaid"
  readonly name: string
  readonly description: string | null
  readonly priceCents: number
  readonly count: number | null
  readonly considerMember: boolean
  readonly visitsShared: boolean
  readonly startDate: string
  readonly endDate: string | null
  readonly staffMemberId: number | null
  readonly locationId: number | null
  /** Null when a client's own purchase created it (an invoice closed in client mode). */
  readonly createdByStaffMemberId: number | null
  /** Memberships and prepaids with a per-period count; absent: none. */
  readonly limitPeriod?: "week" | "month" | "year" | null
  /** A complimentary pass (a new client's); absent: false. */
  readonly isComplimentary?: boolean
}

export const planWrites = (sql: SqlClient.SqlClient) => {
  const visitPaid = visitPaidStatements(sql)
  // The plan and its people in one statement (the first person is the primary participant).
  const insertPlan = SqlSchema.findOne({
    Request: Schema.Struct({
      businessId: Schema.Number,
      planProductId: Schema.Number,
      type: Schema.String,
      name: Schema.String,
      description: Schema.NullOr(Schema.String),
      priceCents: Schema.Number,
      count: Schema.NullOr(Schema.Number),
      considerMember: Schema.Boolean,
      visitsShared: Schema.Boolean,
      startDate: Schema.String,
      endDate: Schema.NullOr(Schema.String),
      staffMemberId: Schema.NullOr(Schema.Number),
      locationId: Schema.NullOr(Schema.Number),
      createdByStaffMemberId: Schema.NullOr(Schema.Number),
      limitPeriod: Schema.NullOr(Schema.String),
      isComplimentary: Schema.Boolean,
      personIds: Schema.Array(Schema.Number),
      now: Schema.Date
    }),
    Result: Id,
    execute: (r) =>
      sql`with plan as (
            insert into plans (business_id, plan_product_id, type, name, description, price_cents, count, consider_member, visits_shared,
              start_date, end_date, staff_member_id, location_id, created_by_staff_member_id, limit_period, is_complimentary, created_at, updated_at)
            values (${r.businessId}, ${r.planProductId}, ${r.type}, ${r.name}, ${r.description}, ${r.priceCents}, ${r.count},
              ${r.considerMember}, ${r.visitsShared}, ${r.startDate}::date, ${r.endDate}::date, ${r.staffMemberId}, ${r.locationId},
              ${r.createdByStaffMemberId}, ${r.limitPeriod}, ${r.isComplimentary}, ${r.now}, ${r.now})
            returning business_id, id),
          people as (
            insert into plan_people (business_id, plan_id, person_id, is_primary)
            select plan.business_id, plan.id, u.person_id, u.ord = 1 from plan, unnest(${bigintArray(r.personIds)}::bigint[]) with ordinality as u(person_id, ord))
          select id from plan`
  })
  const insertTerms = SqlSchema.void({
    Request: Schema.Struct({
      businessId: Schema.Number,
      planId: Schema.Number,
      payerPersonId: Schema.Number,
      acceptanceType: Schema.String,
      terms: Schema.String,
      now: Schema.Date
    }),
    execute: (r) =>
      sql`insert into plan_terms (business_id, plan_id, payer_person_id, acceptance_type, terms, created_at, updated_at)
          values (${r.businessId}, ${r.planId}, ${r.payerPersonId}, ${r.acceptanceType}, ${r.terms}, ${r.now}, ${r.now})`
  })
  const touch = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, now: Schema.Date }),
    execute: ({ businessId, id, now }) => sql`update plans set updated_at = ${now} where business_id = ${businessId} and id = ${id}`
  })
  const updateState = SqlSchema.void({
    Request: Schema.Struct({
      businessId: Schema.Number,
      id: Schema.Number,
      endDate: Schema.NullOr(Schema.String),
      setEndDate: Schema.Boolean,
      canceledAt: Schema.NullOr(Schema.Date),
      canceledByAccountId: Schema.NullOr(Schema.Number),
      setCanceled: Schema.Boolean,
      deactivatedAt: Schema.NullOr(Schema.Date),
      setDeactivated: Schema.Boolean,
      now: Schema.Date
    }),
    execute: (r) =>
      sql`update plans set updated_at = ${r.now}
            ${r.setEndDate ? sql`, end_date = ${r.endDate}::date, ended_notified_at = null` : sql``}
            ${r.setCanceled ? sql`, canceled_at = ${r.canceledAt}, canceled_by_account_id = ${r.canceledByAccountId}` : sql``}
            ${r.setDeactivated ? sql`, deactivated_at = ${r.deactivatedAt}` : sql``}
          where business_id = ${r.businessId} and id = ${r.id}`
  })
  const paidVisits = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: Schema.Struct({ visit_id: Schema.Number }),
    execute: ({ businessId, id }) => sql`select visit_id from punches where business_id = ${businessId} and plan_id = ${id}`
  })
  const deletePlan = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    execute: ({ businessId, id }) => sql`delete from plans where business_id = ${businessId} and id = ${id}`
  })

  // Ends the plans invoice items (`ids`) created (and their signup fee's plan item's, by parent):
  // a refund or void of what sold them.
  const cancelItemPlans = SqlSchema.void({
    Request: Schema.Struct({ ...PlanIds.fields, today: Schema.String }),
    execute: ({ businessId, ids, now, today }) =>
      sql`update plans set canceled_at = coalesce(canceled_at, ${now}),
            end_date = case when end_date is null or end_date > ${today}::date then greatest(start_date, ${today}::date) else end_date end,
            updated_at = ${now}
          where business_id = ${businessId} and id in (
            select plan_id from invoice_item_recipients where business_id = ${businessId} and plan_id is not null
              and invoice_item_id = any(${bigintArray(ids)}::bigint[]))`
  })
  // A plan without a limit period is used up when none of its holders has a visit left; a
  // plan with one refreshes each period, so it is never marked (its period's count says it all).
  // One table, each plan found by its key: joined to a subquery of its own rows, a plan made for
  // an average business (a write's plans are generic: src/platform/transactions.ts) hashed every
  // plan of the business to update a few.
  const refreshExhausted = SqlSchema.void({
    Request: PlanIds,
    execute: ({ businessId, ids, now }) => {
      const value = sql`case when t.count is not null and t.limit_period is null
                               and not exists (select 1 from plan_people pp where pp.business_id = t.business_id and pp.plan_id = t.id
                                                 and ${visitsLeft(sql, "t", sql`pp.person_id`, sql`t.start_date`)} > 0)
                             then coalesce(t.exhausted_at, ${now}) end`
      return sql`update plans t set exhausted_at = ${value}, updated_at = ${now}
                 where t.business_id = ${businessId} and t.id = any(${bigintArray(ids)}) and t.exhausted_at is distinct from ${value}`
    }
  })

  const dueBusinesses = SqlSchema.findAll({
    Request: Schema.Struct({ now: Schema.Date }),
    Result: BusinessRow,
    execute: ({ now }) =>
      sql`select b.id, b.subdomain, b.name, b.time_zone, b.currency_code, b.default_locale from businesses b
          where exists (select 1 from plans p
                        where p.business_id = b.id and p.ended_notified_at is null and p.end_date is not null
                          and p.end_date < (${now}::timestamptz at time zone b.time_zone)::date)
          order by b.id`
  })
  const claimEnded = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, today: Schema.String, limit: Schema.Number, now: Schema.Date }),
    Result: Id,
    execute: ({ businessId, today, limit, now }) =>
      sql`update plans p set ended_notified_at = ${now}
          where p.business_id = ${businessId} and p.id in (
            select id from plans
            where business_id = ${businessId} and ended_notified_at is null and end_date is not null and end_date < ${today}::date
            order by end_date, id limit ${limit} for update skip locked)
          returning p.id`
  })

  /** A plan and its people (the first is the primary participant), in the caller's transaction; answers its id. */
  const insert = ({ businessId, personIds, now, ...plan }: PlanInsert & { readonly businessId: number; readonly personIds: ReadonlyArray<number>; readonly now: Date }) =>
    Effect.map(
      insertPlan({ businessId, ...plan, limitPeriod: plan.limitPeriod ?? null, isComplimentary: plan.isComplimentary ?? false, personIds, now }),
      (row) => row.id
    )
  /** Sets the given state fields (absent: unchanged); a new end date is announced again by plan.ended. */
  const setState = ({ businessId, id, endDate, canceled, deactivatedAt, now }: {
    readonly businessId: number
    readonly id: number
    readonly endDate?: string | null
    readonly canceled?: { readonly at: Date | null; readonly accountId: number | null }
    readonly deactivatedAt?: Date | null
    readonly now: Date
  }) =>
    updateState({
      businessId,
      id,
      endDate: endDate ?? null,
      setEndDate: endDate !== undefined,
      canceledAt: canceled?.at ?? null,
      canceledByAccountId: canceled?.accountId ?? null,
      setCanceled: canceled !== undefined,
      deactivatedAt: deactivatedAt ?? null,
      setDeactivated: deactivatedAt !== undefined,
      now
    })
  const claimedIds = (request: Parameters<typeof claimEnded>[0]) => Effect.map(claimEnded(request), (rows) => rows.map((row) => row.id))
  /** Both as one unit: the visits it paid lose their mirror of the punch before the plan (and its punches) go. */
  const remove = ({ businessId, id, now }: { readonly businessId: number; readonly id: number; readonly now: Date }) =>
    Effect.gen(function* () {
      const paid = yield* paidVisits({ businessId, id })
      if (paid.length > 0) yield* visitPaid.markUnpaid({ businessId, ids: paid.map((row) => row.visit_id), now })
      yield* deletePlan({ businessId, id })
    })

  const cancelPlansOf = (request: Parameters<typeof cancelItemPlans>[0]) => (request.ids.length === 0 ? Effect.void : cancelItemPlans(request))
  const refreshOf = (request: typeof PlanIds.Type) => (request.ids.length === 0 ? Effect.void : refreshExhausted(request))

  return {
    insert: orDie(insert),
    insertTerms: orDie(insertTerms),
    touch: orDie(touch),
    updateState: orDie(setState),
    /** Businesses with plans whose last day is before their local today and not yet announced. */
    dueBusinesses: orDie(dueBusinesses),
    /**
     * Marks up to `limit` plans of the business that ended before `today` as announced and
     * answers their ids; rows locked by a concurrent run are skipped (it announces them).
     */
    claimEnded: orDie(claimedIds),
    /** Deletes the plan: its visits become unpaid; punches, holds, people and terms cascade. */
    delete: orDie(remove),
    /** Ends the plans the invoice items (`ids`) created; none asked, no round trip. */
    cancelItemPlans: orDie(cancelPlansOf),
    /** exhausted_at follows the plans' (`ids`) visits left (set when none is left, cleared when one is again). */
    refreshExhausted: orDie(refreshOf)
  }
}
