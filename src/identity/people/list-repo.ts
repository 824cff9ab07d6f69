import { Effect, Option, Schema } from "effect"
import { type SqlClient, SqlSchema, type Statement } from "effect/sql"
import { type Page, totalCount } from "../../shared/pagination.ts"
import { memberOn } from "../../shared/plan-rules.ts"
import { orDie } from "../../shared/statements.ts"
import { PersonRow, type PersonSort, type PersonSortKey, PERSON_SORT_KEYS } from "./model.ts"

/**
 * The SQL that finds many people: the filtered, sorted list and the scored search. Part of
 * PeopleRepo (repo.ts spreads these methods in, with its column list and FROM clause), kept
 * apart so each file reads one concern; same conventions: every statement names `business_id`.
 */
const Count = Schema.Struct({ n: Schema.Number })
const ListRequest = Schema.Struct({
  businessId: Schema.Number,
  createdSince: Schema.optional(Schema.Date),
  updatedSince: Schema.optional(Schema.Date),
  isMember: Schema.optional(Schema.Boolean),
  today: Schema.String
})
const SearchRequest = Schema.Struct({
  businessId: Schema.Number,
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  phoneDigits: Schema.NullOr(Schema.String),
  barcode: Schema.NullOr(Schema.String)
})
const Paged = { limit: Schema.Number, offset: Schema.Number }

/** The full name as search and its trigram index see it (same expression as the index). */
const FULL_NAME = "lower(p.first_name || ' ' || coalesce(p.middle_name || ' ', '') || p.last_name)"

const SORT_COLUMNS: Record<PersonSortKey, string> = {
  id: "p.id",
  created_at: "p.created_at",
  updated_at: "p.updated_at",
  first_name: "lower(p.first_name)",
  last_name: "lower(p.last_name)"
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, "\\$&")

export interface SearchTerms {
  /** Lowercased text matched against full names; None: names are not searched. */
  readonly name: Option.Option<string>
  /** Lowercased text matched against e-mail addresses. */
  readonly email: Option.Option<string>
  /** Digits matched against complete phone numbers. */
  readonly phoneDigits: Option.Option<string>
  /** Lowercased text matched against whole barcodes. */
  readonly barcode: Option.Option<string>
}

export const listQueries = (
  sql: SqlClient.SqlClient,
  { columns, fromPeople }: { readonly columns: Statement.Fragment; readonly fromPeople: Statement.Fragment }
) => {
  const listWhere = (filters: typeof ListRequest.Encoded) =>
    sql`p.business_id = ${filters.businessId} and p.deleted_at is null
        ${filters.createdSince ? sql`and p.created_at >= ${filters.createdSince}` : sql``}
        ${filters.updatedSince ? sql`and p.updated_at >= ${filters.updatedSince}` : sql``}
        ${filters.isMember !== undefined
          ? sql`and ${filters.isMember ? sql`` : sql`not`} ${memberOn(sql, sql`p.business_id`, sql`p.id`, filters.today)}`
          : sql``}`

  const orderBy = (sorts: ReadonlyArray<PersonSort>) => {
    const parts = sorts.map((s) => `${SORT_COLUMNS[s.key]} ${s.descending ? "desc" : "asc"}`)
    if (!sorts.some((s) => s.key === "id")) parts.push("p.id asc")
    return sql.literal(parts.join(", "))
  }

  /** The search's match and score for each field searched; none: nothing to search. */
  const searchTerms = ({ name, email, phoneDigits, barcode }: typeof SearchRequest.Encoded) => {
    const fullName = sql.literal(FULL_NAME)
    const matches: Array<Statement.Fragment> = []
    const scores: Array<Statement.Fragment> = []
    if (name !== null) {
      const words = name.split(/\s+/).filter((w) => w.length > 0)
      const allWords = sql.and(words.map((w) => sql`${fullName} like ${`%${escapeLike(w)}%`}`))
      matches.push(sql`(${allWords} or ${name} <% ${fullName})`)
      scores.push(sql`case when ${fullName} = ${name} then 2
                           when ${allWords} or ${name} <% ${fullName} then word_similarity(${name}, ${fullName}) + similarity(${name}, ${fullName})
                           else 0 end`)
    }
    if (email !== null) {
      const contains = sql`lower(p.email::text) like ${`%${escapeLike(email)}%`}`
      matches.push(contains)
      scores.push(sql`case when lower(p.email::text) = ${email} then 2
                           when ${contains} then word_similarity(${email}, lower(p.email::text)) + similarity(${email}, lower(p.email::text))
                           else 0 end`)
    }
    if (phoneDigits !== null) {
      matches.push(sql`p.phone_digits = ${phoneDigits}`)
      scores.push(sql`case when p.phone_digits = ${phoneDigits} then 2 else 0 end`)
    }
    if (barcode !== null) {
      const scanned = sql`exists (select 1 from person_barcodes b
                                  where b.business_id = p.business_id and b.person_id = p.id and lower(b.barcode) = ${barcode})`
      matches.push(scanned)
      scores.push(sql`case when ${scanned} then 2 else 0 end`)
    }
    return { matches, scores }
  }

  const listed = SqlSchema.findAll({
    Request: Schema.Struct({
      ...ListRequest.fields,
      sorts: Schema.Array(Schema.Struct({ key: Schema.Literals(PERSON_SORT_KEYS), descending: Schema.Boolean })),
      ...Paged
    }),
    Result: Schema.Struct({ ...PersonRow.fields, total_count: Schema.Number }),
    execute: (request) =>
      sql`select ${columns}, count(*) over () as total_count
          from ${fromPeople}
          where ${listWhere(request)}
          order by ${orderBy(request.sorts)}
          limit ${request.limit} offset ${request.offset}`
  })
  const listCount = SqlSchema.findAll({
    Request: ListRequest,
    Result: Count,
    execute: (request) => sql`select count(*) as n from people p where ${listWhere(request)}`
  })
  const searched = SqlSchema.findAll({
    Request: Schema.Struct({ ...SearchRequest.fields, ...Paged }),
    Result: Schema.Struct({ ...PersonRow.fields, score: Schema.Number, total_count: Schema.Number }),
    execute: (request) => {
      const { matches, scores } = searchTerms(request)
      const score = scores.length === 1 ? scores[0]! : sql`greatest(${sql.csv(scores)})`
      return sql`select ${columns}, round((${score})::numeric, 2)::float8 as score, count(*) over () as total_count
                 from ${fromPeople}
                 where p.business_id = ${request.businessId} and p.deleted_at is null and ${sql.or(matches)}
                 order by score desc, p.id
                 limit ${request.limit} offset ${request.offset}`
    }
  })
  const searchCount = SqlSchema.findAll({
    Request: SearchRequest,
    Result: Count,
    execute: (request) =>
      sql`select count(*) as n from people p
          where p.business_id = ${request.businessId} and p.deleted_at is null and ${sql.or(searchTerms(request).matches)}`
  })

  /** One page of live people with the list filters, in the requested order. */
  const list = ({ page, sorts, ...request }: typeof ListRequest.Type & { readonly page: Page; readonly sorts: ReadonlyArray<PersonSort> }) =>
    Effect.gen(function* () {
      const rows = yield* listed({ ...request, sorts, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, listCount(request))
      return { rows: rows as ReadonlyArray<PersonRow>, total }
    })
  /**
   * Search by name (trigram similarity, or every word contained), e-mail (contained) and
   * complete phone number (its digits) and whole barcode. The score is the best of the fields searched:
   * up to 2 for each (2 = exact).
   */
  const search = ({ businessId, terms, page }: { readonly businessId: number; readonly terms: SearchTerms; readonly page: Page }) =>
    Effect.gen(function* () {
      const request = {
        businessId,
        name: Option.getOrNull(terms.name),
        email: Option.getOrNull(terms.email),
        phoneDigits: Option.getOrNull(terms.phoneDigits),
        barcode: Option.getOrNull(terms.barcode)
      }
      if (searchTerms(request).matches.length === 0) return { rows: [], total: 0 }
      const rows = yield* searched({ ...request, limit: page.limit, offset: page.offset })
      const total = yield* totalCount(rows, page, searchCount(request))
      return { rows, total }
    })

  return { list: orDie(list), search: orDie(search) }
}
