import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { type Page, totalCount } from "../shared/pagination.ts"
import { BusinessRow } from "../shared/request-context.ts"
import { holdsQueries } from "./holds-repo.ts"
import { PackProductRow, PLAN_FILTERS, type PlanFilter, PlanRow } from "./model.ts"
import { availableOn, currentOn, onHoldOn, visitsLeft } from "../shared/plan-rules.ts"

/**
 * The SQL of person plans, packs and holds. The plan rules (current, on hold, visits left,
 * available) are the shared fragments of rules.ts, evaluated on `today`, the business-local date
 * the service computes from Clock. Writes run on the caller's connection (inside its transaction).
 */
const Count = Schema.Struct({ n: Schema.Number })
const Id = Schema.Struct({ id: Schema.Number })

/** Whose visits a plan row counts: the path's person, else the plan's primary participant. */
const Scope = Schema.Struct({
  businessId: Schema.Number,
  today: Schema.String,
  personId: Schema.NullOr(Schema.Number),
  filter: Schema.NullOr(Schema.Literals(PLAN_FILTERS)),
  planId: Schema.NullOr(Schema.Number),
  packsOnly: Schema.Boolean
})
type Scope = typeof Scope.Type

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

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const primary = sql`(select pr.person_id from plan_people pr
                       where pr.business_id = p.business_id and pr.plan_id = p.id
                       order by pr.is_primary desc, pr.person_id limit 1)`
  const personOf = (scope: Scope) => (scope.personId === null ? primary : scope.personId)

  const left = (scope: Scope) => visitsLeft(sql, "p", personOf(scope), scope.today)
  const hasVisits = (scope: Scope) => sql`(p.count is null or ${left(scope)} > 0)`
  const active = (scope: Scope) => sql`(${currentOn(sql, "p", scope.today)} and ${hasVisits(scope)})`
  const upcoming = (scope: Scope) =>
    sql`(p.start_date > (${scope.today})::date and p.deactivated_at is null and ${hasVisits(scope)})`
  const filters: Record<PlanFilter, (scope: Scope) => Statement.Fragment> = {
    active,
    active_with_upcoming: (scope) => sql`(${active(scope)} or ${upcoming(scope)})`,
    current: (scope) => currentOn(sql, "p", scope.today),
    inactive: (scope) => sql`not ${active(scope)}`,
    upcoming,
    usable: (scope) => availableOn(sql, "p", personOf(scope), scope.today)
  }

  const where = (scope: Scope) =>
    sql.and([
      sql`p.business_id = ${scope.businessId}`,
      ...(scope.planId === null ? [] : [sql`p.id = ${scope.planId}`]),
      ...(scope.packsOnly ? [sql`p.type = 'Pack'`] : []),
      ...(scope.personId === null
        ? []
        : [sql`exists (select 1 from plan_people pw where pw.business_id = p.business_id and pw.plan_id = p.id and pw.person_id = ${scope.personId})`]),
      ...(scope.filter === null ? [] : [filters[scope.filter](scope)])
    ])

  const columns = (scope: Scope) =>
    sql`p.id, p.plan_product_id, p.type, p.name, p.description, p.price_cents, p.count, p.limit_period, p.rollover_count,
        p.consider_member, p.visits_shared, p.start_date::text as start_date, p.end_date::text as end_date,
        p.staff_member_id, p.location_id, p.canceled_at, p.deactivated_at,
        (select coalesce(json_agg(pp.person_id order by pp.is_primary desc, pp.person_id), '[]'::json)
         from plan_people pp where pp.business_id = p.business_id and pp.plan_id = p.id) as person_ids,
        ${left(scope)} as visits_remaining, ${onHoldOn(sql, "p", scope.today)} as on_hold,
        p.created_at, p.updated_at`

  const listed = SqlSchema.findAll({
    Request: Schema.Struct({ ...Scope.fields, limit: Schema.Number, offset: Schema.Number }),
    Result: Schema.Struct({ ...PlanRow.fields, total_count: Schema.Number }),
    execute: (request) =>
      sql`select ${columns(request)}, count(*) over ()::int as total_count from plans p
          where ${where(request)} order by p.start_date desc, p.id desc limit ${request.limit} offset ${request.offset}`
  })
  const counted = SqlSchema.findAll({
    Request: Scope,
    Result: Count,
    execute: (request) => sql`select count(*)::int as n from plans p where ${where(request)}`
  })
  const found = SqlSchema.findOneOption({
    Request: Scope,
    Result: PlanRow,
    execute: (request) => sql`select ${columns(request)} from plans p where ${where(request)}`
  })
  const lockPlan = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: Id,
    execute: ({ businessId, id }) => sql`select id from plans where business_id = ${businessId} and id = ${id} for update`
  })
  const packProduct = SqlSchema.findOneOption({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    Result: PackProductRow,
    execute: ({ businessId, id }) =>
      sql`select id, name, description, price_cents, count, commitment_length, commitment_unit, consider_member, suspended,
                 terms, terms_acceptance_required, terms_acceptance_type
          from plan_products
          where business_id = ${businessId} and id = ${id} and kind in ('pack', 'single_visit_pass') and deleted_at is null`
  })
  const newClientPasses = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number }),
    Result: PackProductRow,
    execute: ({ businessId }) =>
      sql`select id, name, description, price_cents, count, commitment_length, commitment_unit, consider_member, suspended,
                 terms, terms_acceptance_required, terms_acceptance_type
          from plan_products
          where business_id = ${businessId} and new_client_pass and kind in ('pack', 'single_visit_pass')
            and deleted_at is null and not suspended
          order by id`
  })
  const exists = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, table: Schema.Literals(["staff_members", "locations"]), id: Schema.Number }),
    Result: Id,
    execute: ({ businessId, table, id }) => sql`select id from ${sql.literal(table)} where business_id = ${businessId} and id = ${id}`
  })
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
      now: Schema.Date
    }),
    Result: Id,
    execute: (r) =>
      sql`insert into plans (business_id, plan_product_id, type, name, description, price_cents, count, consider_member, visits_shared,
            start_date, end_date, staff_member_id, location_id, created_by_staff_member_id, limit_period, is_complimentary, created_at, updated_at)
          values (${r.businessId}, ${r.planProductId}, ${r.type}, ${r.name}, ${r.description}, ${r.priceCents}, ${r.count},
            ${r.considerMember}, ${r.visitsShared}, ${r.startDate}::date, ${r.endDate}::date, ${r.staffMemberId}, ${r.locationId},
            ${r.createdByStaffMemberId}, ${r.limitPeriod}, ${r.isComplimentary}, ${r.now}, ${r.now})
          returning id`
  })
  const insertPeople = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, planId: Schema.Number, personIds: Schema.Array(Schema.Number) }),
    execute: ({ businessId, planId, personIds }) =>
      sql`insert into plan_people (business_id, plan_id, person_id, is_primary)
          select ${businessId}, ${planId}, person_id, ord = 1 from unnest(${personIds}::bigint[]) with ordinality as u(person_id, ord)`
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
  // The visits a plan paid lose their mirror of the punch before the plan (and its punches) go.
  const clearPaidVisits = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number, now: Schema.Date }),
    execute: ({ businessId, id, now }) =>
      sql`update visits v set punch_id = null, paid_for_by = null, updated_at = ${now}
          from punches pu
          where pu.business_id = ${businessId} and pu.plan_id = ${id} and v.business_id = pu.business_id and v.id = pu.visit_id`
  })
  const deletePlan = SqlSchema.void({
    Request: Schema.Struct({ businessId: Schema.Number, id: Schema.Number }),
    execute: ({ businessId, id }) => sql`delete from plans where business_id = ${businessId} and id = ${id}`
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

  const scope = (businessId: number, today: string, options: Partial<Omit<Scope, "businessId" | "today">> = {}): Scope => ({
    businessId,
    today,
    personId: options.personId ?? null,
    filter: options.filter ?? null,
    planId: options.planId ?? null,
    packsOnly: options.packsOnly ?? false
  })

  return {
    ...holdsQueries(sql),

    /** A page of plans (newest start first), of the business or of one person, and the total. */
    list: (
      businessId: number,
      today: string,
      options: { readonly personId?: number | undefined; readonly filter?: PlanFilter | undefined },
      page: Page
    ) =>
      Effect.gen(function* () {
        const request = scope(businessId, today, { personId: options.personId ?? null, filter: options.filter ?? null })
        const rows = yield* listed({ ...request, limit: page.limit, offset: page.offset })
        const total = yield* totalCount(rows, page, counted(request))
        return { rows: rows as ReadonlyArray<PlanRow>, total }
      }).pipe(Effect.orDie),

    /** One plan (only a Pack with `packsOnly`), visits counted for its primary participant. */
    find: (businessId: number, today: string, id: number, options: { readonly packsOnly?: boolean } = {}) =>
      found(scope(businessId, today, { planId: id, packsOnly: options.packsOnly ?? false })).pipe(
        Effect.map(Option.getOrUndefined),
        Effect.orDie
      ),

    /** Locks the plan row: holds and state changes of one plan run one at a time. */
    lock: (businessId: number, id: number) => lockPlan({ businessId, id }).pipe(Effect.map(Option.isSome), Effect.orDie),

    /** The live pack and pass products the business gives new clients (new_client_pass). */
    newClientPasses: (businessId: number) => newClientPasses({ businessId }).pipe(Effect.orDie),

    packProduct: (businessId: number, id: number) => packProduct({ businessId, id }).pipe(Effect.map(Option.getOrUndefined), Effect.orDie),

    exists: (businessId: number, table: "staff_members" | "locations", id: number) =>
      exists({ businessId, table, id }).pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),

    /** A plan and its people (the first is the primary participant), in the caller's transaction. */
    insert: (businessId: number, plan: PlanInsert, personIds: ReadonlyArray<number>, now: Date) =>
      Effect.gen(function* () {
        const { id } = yield* insertPlan({ businessId, ...plan, limitPeriod: plan.limitPeriod ?? null, isComplimentary: plan.isComplimentary ?? false, now })
        yield* insertPeople({ businessId, planId: id, personIds })
        return id
      }).pipe(Effect.orDie),

    insertTerms: (
      businessId: number,
      terms: { readonly planId: number; readonly payerPersonId: number; readonly acceptanceType: string; readonly terms: string },
      now: Date
    ) => insertTerms({ businessId, ...terms, now }).pipe(Effect.orDie),

    touch: (businessId: number, id: number, now: Date) => touch({ businessId, id, now }).pipe(Effect.orDie),

    /** Sets the given state fields (absent: unchanged); a new end date is announced again by plan.ended. */
    updateState: (
      businessId: number,
      id: number,
      fields: {
        readonly endDate?: string | null
        readonly canceled?: { readonly at: Date | null; readonly accountId: number | null }
        readonly deactivatedAt?: Date | null
      },
      now: Date
    ) =>
      updateState({
        businessId,
        id,
        endDate: fields.endDate ?? null,
        setEndDate: fields.endDate !== undefined,
        canceledAt: fields.canceled?.at ?? null,
        canceledByAccountId: fields.canceled?.accountId ?? null,
        setCanceled: fields.canceled !== undefined,
        deactivatedAt: fields.deactivatedAt ?? null,
        setDeactivated: fields.deactivatedAt !== undefined,
        now
      }).pipe(Effect.orDie),

    /** Businesses with plans whose last day is before their local today and not yet announced. */
    dueBusinesses: (now: Date) => dueBusinesses({ now }).pipe(Effect.orDie),

    /**
     * Marks up to `limit` plans of the business that ended before `today` as announced and
     * answers their ids; rows locked by a concurrent run are skipped (it announces them).
     */
    claimEnded: (businessId: number, today: string, limit: number, now: Date) =>
      claimEnded({ businessId, today, limit, now }).pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie),

    /** Deletes the plan: its visits become unpaid; punches, holds, people and terms cascade. */
    delete: (businessId: number, id: number, now: Date) =>
      clearPaidVisits({ businessId, id, now }).pipe(Effect.andThen(deletePlan({ businessId, id })), Effect.orDie)
  }
})

export class PlansRepo extends Context.Service<PlansRepo, Effect.Success<typeof make>>()("studio/PlansRepo") {
  static readonly layer = Layer.effect(PlansRepo)(make)
}
