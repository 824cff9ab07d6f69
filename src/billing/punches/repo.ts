import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { orDie, orUndefined } from "../../shared/statements.ts"
import { currentOn, memberOn, onHoldOn, visitsLeft } from "../../shared/plan-rules.ts"
import { visitPaidStatements } from "../../enrollment/visits/paid-statements.ts"
import { type Coverage, choiceOrder, suitableFor } from "./choice.ts"
import { PlanStanding, PunchRow, PunchVisit } from "./model.ts"
import { bigintArray } from "../../shared/sql-rows.ts"

/**
 * The SQL of punches and of every question billing answers about plans for lower domains (the
 * automatic choice, eligibility's plan holders, membership). The plan rules themselves are
 * src/shared/plan-rules.ts's fragments and the choice's are src/billing/punches/choice.ts's.
 */
const Ids = Schema.Array(Schema.Number)
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const CoverageSchema = Schema.Struct({
  serviceId: Schema.Number,
  locationId: Schema.NullOr(Schema.Number),
  staffMemberIds: Ids,
  date: Schema.String
})
const PUNCH_COLUMNS = `pu.id, pu.visit_id, pu.plan_id, pu.person_id, pu.created_by_staff_member_id, pu.created_at`

type ByIds = { readonly businessId: number; readonly ids: ReadonlyArray<number> }
const idSet = (rows: ReadonlyArray<{ readonly id: number }>): ReadonlySet<number> => new Set(rows.map((row) => row.id))

/** Punches and the visits they pay for, as a punch sees them. */
const punchReads = (sql: SqlClient.SqlClient) => {
  const find = SqlSchema.findOneOption({
    Request: ById,
    Result: PunchRow,
    execute: ({ businessId, id }) =>
      sql`select ${sql.literal(PUNCH_COLUMNS)} from punches pu where pu.business_id = ${businessId} and pu.id = ${id}`
  })
  const ofVisits = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, ids: Ids }),
    Result: PunchRow,
    execute: ({ businessId, ids }) =>
      sql`select ${sql.literal(PUNCH_COLUMNS)} from punches pu where pu.business_id = ${businessId} and pu.visit_id = any(${bigintArray(ids)}) order by pu.id`
  })
  const visitRow = (lock: boolean) =>
    SqlSchema.findOneOption({
      Request: ById,
      Result: PunchVisit,
      execute: ({ businessId, id }) =>
        sql`select v.id, v.person_id, v.state, v.punch_id, o.service_id, o.location_id,
              coalesce((select array_agg(s.staff_member_id::int order by s.staff_member_id) from event_occurrence_staff_members s
                        where s.business_id = o.business_id and s.event_occurrence_id = o.id), '{}') as staff_member_ids,
              to_char((o.start_at at time zone b.time_zone)::date, 'YYYY-MM-DD') as visit_date
            from visits v
            join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id
            join businesses b on b.id = v.business_id
            where v.business_id = ${businessId} and v.id = ${id}
            ${lock ? sql`for update of v` : sql``}`
    })
  const visitUnlocked = visitRow(false)
  const visitLocked = visitRow(true)
  const ofVisitsOf = (request: ByIds) => (request.ids.length === 0 ? Effect.succeed([] as ReadonlyArray<PunchRow>) : ofVisits(request))
  const visit = ({ lock, ...request }: { readonly businessId: number; readonly id: number; readonly lock: boolean }) =>
    (lock ? visitLocked : visitUnlocked)(request)
  return {
    find: orUndefined(find),
    /** The punches of the visits (`ids`, at most one each). */
    ofVisits: orDie(ofVisitsOf),
    /** The visit as a punch sees it; `lock`: locked until the commit (one punch per visit, decided under it). */
    visit: orUndefined(visit)
  }
}

/** Punch writes, each keeping the visit and its punch in step (punch_id, paid_for_by, through visits' own statements). */
const punchWrites = (sql: SqlClient.SqlClient) => {
  const visitPaid = visitPaidStatements(sql)
  const insert = SqlSchema.findOne({
    Request: Schema.Struct({
      businessId: Schema.Number,
      visitId: Schema.Number,
      planId: Schema.Number,
      personId: Schema.Number,
      visitDate: Schema.String,
      createdBy: Schema.NullOr(Schema.Number),
      now: Schema.Date
    }),
    Result: Schema.Struct({ ...PunchRow.fields, plan_name: Schema.String }),
    execute: ({ businessId, visitId, planId, personId, visitDate, createdBy, now }) =>
      sql`insert into punches as pu (business_id, visit_id, plan_id, person_id, visit_date, created_by_staff_member_id, created_at)
          values (${businessId}, ${visitId}, ${planId}, ${personId}, ${visitDate}::date, ${createdBy}, ${now})
          returning ${sql.literal(PUNCH_COLUMNS)}, (select name from plans where business_id = ${businessId} and id = ${planId}) as plan_name`
  })
  const remove = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, ids: Ids }),
    Result: Schema.Struct({ visit_id: Schema.Number, plan_id: Schema.Number }),
    execute: ({ businessId, ids }) =>
      sql`delete from punches where business_id = ${businessId} and id = any(${bigintArray(ids)}) returning visit_id, plan_id`
  })
  const insertPunch = ({ now, ...punch }: Omit<Parameters<typeof insert>[0], "now"> & { readonly now: Date }) =>
    Effect.gen(function* () {
      const { plan_name, ...row } = yield* insert({ ...punch, now })
      yield* visitPaid.markPaid({ businessId: punch.businessId, id: punch.visitId, punchId: row.id, paidForBy: plan_name, now })
      return row
    })
  const deletePunches = ({ businessId, ids, now }: ByIds & { readonly now: Date }) =>
    Effect.gen(function* () {
      if (ids.length === 0) return [] as ReadonlyArray<number>
      const removed = yield* remove({ businessId, ids })
      yield* visitPaid.markUnpaid({ businessId, ids: removed.map((row) => row.visit_id), now })
      return [...new Set(removed.map((row) => row.plan_id))]
    })
  return {
    /** Inserts the punch and mirrors it on the visit (punch_id, paid_for_by = the plan's name); answers it as written. */
    insert: orDie(insertPunch),
    /** Deletes the punches (`ids`) and makes their visits unpaid; returns the plans they spent. */
    delete: orDie(deletePunches)
  }
}

/** The automatic choice's questions about a person's plans, asked again under the plan's lock. */
const choiceStatements = (sql: SqlClient.SqlClient) => {
  const lockPlan = SqlSchema.findOneOption({
    Request: ById,
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, id }) => sql`select id from plans where business_id = ${businessId} and id = ${id} for update`
  })
  const standing = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...ById.fields, personId: Schema.Number, date: Schema.String }),
    Result: PlanStanding,
    execute: ({ businessId, id, personId, date }) =>
      sql`select p.id, p.name,
            exists (select 1 from plan_people pp where pp.business_id = p.business_id and pp.plan_id = p.id and pp.person_id = ${personId}) as held,
            ${currentOn(sql, "p", date)} as current, ${onHoldOn(sql, "p", date)} as on_hold,
            ${visitsLeft(sql, "p", personId, date)} as visits_left
          from plans p where p.business_id = ${businessId} and p.id = ${id}`
  })
  const candidates = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, personId: Schema.Number, coverage: CoverageSchema }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, personId, coverage }) =>
      sql`select p.id from plans p
          where p.business_id = ${businessId} and ${suitableFor(sql, "p", personId, coverage)}
          order by ${choiceOrder(sql, "p", personId, coverage.date)}`
  })
  const stillSuitable = SqlSchema.findAll({
    Request: Schema.Struct({ ...ById.fields, personId: Schema.Number, coverage: CoverageSchema }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, id, personId, coverage }) =>
      sql`select p.id from plans p where p.business_id = ${businessId} and p.id = ${id} and ${suitableFor(sql, "p", personId, coverage)}`
  })
  const lockPlanOf = (request: Parameters<typeof lockPlan>[0]) => Effect.map(lockPlan(request), Option.isSome)
  const candidateIds = (request: Parameters<typeof candidates>[0]) => Effect.map(candidates(request), (rows) => rows.map((row) => row.id))
  const suitable = (request: Parameters<typeof stillSuitable>[0]) => Effect.map(stillSuitable(request), (rows) => rows.length > 0)
  return {
    /** Locks the plan until the commit (every punch of a plan counts under this lock); false: no such plan. */
    lockPlan: orDie(lockPlanOf),
    /** How the plan stands for the person on the date (after lockPlan: counted under the lock). */
    standing: orUndefined(standing),
    /** The person's suitable plans for the visit, best first (the automatic choice), by id. */
    candidates: orDie(candidateIds),
    /** Whether the plan is still suitable (asked again once it is locked). */
    stillSuitable: orDie(suitable)
  }
}

/** What lower domains ask of plans through their ports (eligibility's holders, services' members). */
const portStatements = (sql: SqlClient.SqlClient) => {
  const planHolders = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, ids: Ids, coverage: CoverageSchema }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, ids, coverage }) =>
      sql`select distinct pp.person_id as id from plan_people pp
          join plans p on p.business_id = pp.business_id and p.id = pp.plan_id
          where pp.business_id = ${businessId} and pp.person_id = any(${bigintArray(ids)})
            and ${suitableFor(sql, "p", sql`pp.person_id`, coverage)}`
  })
  const members = SqlSchema.findAll({
    Request: Schema.Struct({ businessId: Schema.Number, ids: Ids, date: Schema.String }),
    Result: Schema.Struct({ id: Schema.Number }),
    execute: ({ businessId, ids, date }) =>
      sql`select pe.id from people pe
          where pe.business_id = ${businessId} and pe.id = any(${bigintArray(ids)}) and ${memberOn(sql, businessId, sql`pe.id`, date)}`
  })
  const localDate = SqlSchema.findOne({
    Request: Schema.Struct({ businessId: Schema.Number, at: Schema.Date }),
    Result: Schema.Struct({ date: Schema.String }),
    execute: ({ businessId, at }) =>
      sql`select to_char((${at}::timestamptz at time zone time_zone)::date, 'YYYY-MM-DD') as date from businesses where id = ${businessId}`
  })
  const noOne = Effect.succeed(new Set<number>() as ReadonlySet<number>)
  const holdersOf = (request: ByIds & { readonly coverage: Coverage }) => (request.ids.length === 0 ? noOne : Effect.map(planHolders(request), idSet))
  const membersOf = (request: ByIds & { readonly date: string }) => (request.ids.length === 0 ? noOne : Effect.map(members(request), idSet))
  const dateOf = (request: Parameters<typeof localDate>[0]) => Effect.map(localDate(request), (row) => row.date)

  return {
    /** Of the people (`ids`), who holds a suitable plan for the visit described by `coverage`. */
    planHolders: orDie(holdersOf),
    /** The business-local calendar date of an instant (plans' dates are the business's). */
    localDate: orDie(dateOf),
    /** Of the people (`ids`), who is a member on the date (src/shared/plan-rules.ts memberOn). */
    members: orDie(membersOf)
  }
}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return { ...punchReads(sql), ...punchWrites(sql), ...choiceStatements(sql), ...portStatements(sql) }
})

export class PunchesRepo extends Context.Service<PunchesRepo, Effect.Success<typeof make>>()("studio/PunchesRepo") {
  static readonly layer = Layer.effect(PunchesRepo)(make)
}

