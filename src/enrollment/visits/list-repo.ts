import { Effect, Schema } from "effect"
import { type SqlClient, SqlSchema } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { orDie } from "../../shared/statements.ts"
import { VISIT_COLUMNS, VisitRow } from "./model.ts"

/**
 * The SQL of visit lists: a person's visits and an occurrence's roster, each a page and its
 * total. Part of VisitsRepo (repo.ts spreads these methods in); every statement names
 * `business_id`.
 */
const ById = Schema.Struct({ businessId: Schema.Number, id: Schema.Number })
const Listed = Schema.Struct({ ...VisitRow.fields, total_count: Schema.Number })
const Count = Schema.Struct({ n: Schema.Number })
const PersonFilters = Schema.Struct({
  businessId: Schema.Number,
  personId: Schema.Number,
  from: Schema.optional(Schema.Date),
  to: Schema.optional(Schema.Date),
  occurrenceId: Schema.optional(Schema.Number)
})

export const visitListQueries = (sql: SqlClient.SqlClient) => {
  const personWhere = ({ businessId, personId, from, to, occurrenceId }: typeof PersonFilters.Encoded) =>
    sql.and([
      sql`v.business_id = ${businessId}`,
      sql`v.person_id = ${personId}`,
      ...(from === undefined ? [] : [sql`o.start_at >= ${from}`]),
      ...(to === undefined ? [] : [sql`o.start_at <= ${to}`]),
      ...(occurrenceId === undefined ? [] : [sql`v.event_occurrence_id = ${occurrenceId}`])
    ])
  const personFrom = sql`visits v join event_occurrences o on o.business_id = v.business_id and o.id = v.event_occurrence_id`
  const listForPerson = SqlSchema.findAll({
    Request: Schema.Struct({ ...PersonFilters.fields, limit: Schema.Number, offset: Schema.Number }),
    Result: Listed,
    execute: (request) =>
      sql`select ${sql.literal(VISIT_COLUMNS)}, count(*) over () as total_count from ${personFrom}
          where ${personWhere(request)} order by o.start_at, v.id limit ${request.limit} offset ${request.offset}`
  })
  const countForPerson = SqlSchema.findAll({
    Request: PersonFilters,
    Result: Count,
    execute: (request) => sql`select count(*) as n from ${personFrom} where ${personWhere(request)}`
  })
  const listForOccurrence = SqlSchema.findAll({
    Request: Schema.Struct({ ...ById.fields, limit: Schema.Number, offset: Schema.Number }),
    Result: Listed,
    execute: ({ businessId, id, limit, offset }) =>
      sql`select ${sql.literal(VISIT_COLUMNS)}, count(*) over () as total_count from visits v
          where v.business_id = ${businessId} and v.event_occurrence_id = ${id}
          order by v.created_at, v.id limit ${limit} offset ${offset}`
  })
  const countForOccurrence = SqlSchema.findAll({
    Request: ById,
    Result: Count,
    execute: ({ businessId, id }) => sql`select count(*) as n from visits where business_id = ${businessId} and event_occurrence_id = ${id}`
  })

  return {
    /**
     * A person's visits, by their occurrence's start then id; `from`..`to` (both inclusive)
     * bounds the occurrence's start.
     */
    listForPerson: orDie(({ page, ...request }: typeof PersonFilters.Type & { readonly page: Page }) =>
      Effect.gen(function* () {
        const rows = yield* listForPerson({ ...request, limit: page.limit, offset: page.offset })
        const total = yield* totalCount(rows, page, countForPerson(request))
        return { rows: rows as ReadonlyArray<VisitRow>, total }
      })
    ),
    /** An occurrence's visits, in the order they were made (the roster's order). */
    listForOccurrence: orDie(({ businessId, occurrenceId, page }: { readonly businessId: number; readonly occurrenceId: number; readonly page: Page }) =>
      Effect.gen(function* () {
        const rows = yield* listForOccurrence({ businessId, id: occurrenceId, limit: page.limit, offset: page.offset })
        const total = yield* totalCount(rows, page, countForOccurrence({ businessId, id: occurrenceId }))
        return { rows: rows as ReadonlyArray<VisitRow>, total }
      })
    )
  }
}
