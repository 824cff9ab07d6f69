import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"

/** SQL pieces shared by the scale seed's statements (scale-business.ts, scale-sales.ts, scale-pays.ts). */

/** A statement that selects one row with a count `n`. */
const Count = Schema.Struct({ n: Schema.Number })

/** A generated statement (its text and positional parameters) that selects one count `n`. */
export const countOf = (sql: SqlClient.SqlClient) =>
  SqlSchema.findOne({
    Request: Schema.Struct({ text: Schema.String, params: Schema.Array(Schema.Unknown) }),
    Result: Count,
    execute: ({ text, params }) => sql.unsafe(text, [...params])
  })

/**
 * A deterministic fraction in [0, 1) from an SQL integer expression: a multiplicative hash, then
 * an xor-shift and a second multiply, so that consecutive ids do not walk through [0, 1) in steps.
 */
export const hash = (expression: string) => {
  const first = `(((${expression}) * 2654435761::bigint) % 4294967296)`
  return `((((${first} # (${first} >> 16)) * 73244475) % 4294967296) / 4294967296.0)`
}

/** round(amount × scaled / 10^6) for amount ≥ 0, half away from zero, on integers (percentOf with scaled = percent × 10^4). */
export const percentOf = (amount: string, scaled: string) => `((2 * (${amount})::bigint * (${scaled}) + 1000000) / 2000000)`
/** The inclusive tax inside `base` (inclusiveTaxOf): base − round(base × 10^6 / (10^6 + scaled)). */
export const inclusiveTaxOf = (base: string, scaled: string) =>
  `((${base}) - (2 * (${base})::bigint * 1000000 + 1000000 + (${scaled})) / (2 * (1000000 + (${scaled}))))`

/** Runs a generated INSERT ... SELECT (text and positional parameters) and answers how many rows it wrote. */
export const insertedCount = (sql: SqlClient.SqlClient) => {
  const count = countOf(sql)
  return (insert: string, params: ReadonlyArray<unknown>) =>
    count({ text: `with made as (${insert} returning 1) select count(*)::int as n from made`, params }).pipe(Effect.map((row) => row.n))
}

/** The parameters a statement uses, $1 to its highest (PostgreSQL cannot type one it never sees, so a gap is a bug). */
const paramsOf = (statement: string, all: ReadonlyArray<unknown>): Array<unknown> => {
  const used = new Set([...statement.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))
  const highest = Math.max(0, ...used)
  for (let i = 1; i <= highest; i++) if (!used.has(i)) throw new Error(`statement skips $${i}`)
  return all.slice(0, highest)
}


/**
 * Runs the statements of one business: `$1` its id, `$2` its time zone, `$3` now (each statement
 * gets the parameters it uses). `count` runs one that selects `n`.
 */
export const businessStatements = (businessId: number, timeZone: string, now: Date) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Each statement's time at debug level (LOG_LEVEL=debug), to see where seeding goes.
    const run = (statement: string) =>
      Effect.suspend(() => {
        const started = performance.now()
        return sql.unsafe(statement, paramsOf(statement, [businessId, timeZone, now])).pipe(
          Effect.tap(() =>
            Effect.logDebug(`seed sales: ${statement.replace(/\s+/g, " ").trim().slice(0, 60)}: ${Math.round(performance.now() - started)} ms`)
          )
        )
      })
    const countRow = SqlSchema.findOne({ Request: Schema.String, Result: Count, execute: run })
    const count = (statement: string) => countRow(statement).pipe(Effect.map((row) => row.n))
    return { run, count }
  })

export type BusinessStatements = Effect.Success<ReturnType<typeof businessStatements>>
