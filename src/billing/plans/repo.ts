import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { holdsQueries } from "./holds-repo.ts"
import { planWrites } from "./writes-repo.ts"
import { PackProductRow, PLAN_FILTERS, type PlanFilter, PlanRow } from "./model.ts"
import { availableOn, currentOn, onHoldOn, visitsLeft } from "../../shared/plan-rules.ts"

/**
 * The SQL of person plans and packs (writes: writes-repo.ts; holds: holds-repo.ts). The plan
 * rules (current, on hold, visits left, available) are the shared fragments of
 * shared/plan-rules.ts, evaluated on `today`, the business-local date the service computes
 * from Clock. Writes run on the caller's connection (inside its transaction).
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

/** Which plans a scope selects (its filters over the plan rules) and the columns of a plan row. */
const planSql = (sql: SqlClient.SqlClient) => {
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
  return { where, columns }
}

/** What a sale of a plan refers to: pack and pass products, and the staff member or location it names. */
const productStatements = (sql: SqlClient.SqlClient) => {
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
  const existsOne = (request: Parameters<typeof exists>[0]) => Effect.map(exists(request), (rows) => ({ found: rows.length > 0 }))
  return {
    /** The live pack and pass products the business gives new clients (new_client_pass). */
    newClientPasses: orDie(newClientPasses),
    packProduct: orUndefined(packProduct),
    /** `{ found }`: whether the business has that staff member or location. */
    exists: orDie(existsOne)
  }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const { where, columns } = planSql(sql)

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
  const scope = (businessId: number, today: string, options: Partial<Omit<Scope, "businessId" | "today">> = {}): Scope => ({
    businessId,
    today,
    personId: options.personId ?? null,
    filter: options.filter ?? null,
    planId: options.planId ?? null,
    packsOnly: options.packsOnly ?? false
  })

  /** A page of plans (newest start first), of the business or of one person, and the total. */
  const list = ({ businessId, today, personId, filter, page }: {
    readonly businessId: number
    readonly today: string
    readonly personId?: number | undefined
    readonly filter?: PlanFilter | undefined
    readonly page: Page
  }) =>
    Effect.gen(function* () {
      const request = scope(businessId, today, { personId: personId ?? null, filter: filter ?? null })
      const rows = yield* listed({ ...request, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, counted(request))
      return { rows: rows as ReadonlyArray<PlanRow>, total }
    })
  const findOne = ({ businessId, today, id, packsOnly }: { readonly businessId: number; readonly today: string; readonly id: number; readonly packsOnly?: boolean }) =>
    found(scope(businessId, today, { planId: id, packsOnly: packsOnly ?? false }))
  const locked = (request: Parameters<typeof lockPlan>[0]) => Effect.map(lockPlan(request), Option.isSome)

  return {
    ...holdsQueries(sql),
    ...planWrites(sql),

    list: orDie(list),
    /** One plan (only a Pack with `packsOnly`), visits counted for its primary participant. */
    find: orUndefined(findOne),
    /** Locks the plan row: holds and state changes of one plan run one at a time; false: no such plan. */
    lock: orDie(locked),
    ...productStatements(sql)
  }
})

export class PlansRepo extends Context.Service<PlansRepo, Effect.Success<typeof make>>()("studio/PlansRepo") {
  static readonly layer = Layer.effect(PlansRepo)(make)
}
