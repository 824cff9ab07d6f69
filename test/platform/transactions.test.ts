import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inTransaction } from "../../src/platform/transactions.ts"
import { type TestServer, startTestServer } from "../support/server.ts"

/** Two writers locking two rows in opposite orders: PostgreSQL aborts one, inTransaction runs it again. */

let server: TestServer

beforeAll(async () => {
  server = await startTestServer()
  await server.pool.query(`create table lock_race (id int primary key, n int not null default 0)`)
  await server.pool.query(`insert into lock_race (id) values (1), (2)`)
})
afterAll(async () => {
  await server?.close()
})

const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => server.runtime.runPromiseExit(effect)

describe("inTransaction", () => {
  it("runs the loser of a deadlock again, so both writes land", async () => {
    let attempts = 0
    const writer = (first: number, second: number) =>
      inTransaction(
        Effect.gen(function* () {
          attempts++
          const sql = yield* SqlClient.SqlClient
          yield* sql`update lock_race set n = n + 1 where id = ${first}`
          yield* Effect.sleep("150 millis")
          yield* sql`update lock_race set n = n + 1 where id = ${second}`
        })
      )
    const [a, b] = await Promise.all([run(writer(1, 2)), run(writer(2, 1))])
    expect(Exit.isSuccess(a) && Exit.isSuccess(b)).toBe(true)
    // One transaction was aborted (deadlock_detected) and ran again.
    expect(attempts).toBeGreaterThanOrEqual(3)
    const { rows } = await server.pool.query(`select id, n from lock_race order by id`)
    expect(rows.map((row) => row.n)).toEqual([2, 2])
  })

  it("does not retry other SQL errors, which stay defects", async () => {
    let attempts = 0
    const exit = await run(
      inTransaction(
        Effect.gen(function* () {
          attempts++
          const sql = yield* SqlClient.SqlClient
          yield* sql`update lock_race set n = n + 1 where id = 1`
          yield* sql`select no_such_column from lock_race`
        })
      )
    )
    expect(Exit.isFailure(exit) && Exit.hasDies(exit)).toBe(true)
    expect(attempts).toBe(1)
    // Rolled back: the first update did not land.
    const { rows } = await server.pool.query(`select n from lock_race where id = 1`)
    expect(rows[0].n).toBe(2)
  })

  it("keeps a domain failure typed, without retrying it", async () => {
    let attempts = 0
    const exit = await run(
      inTransaction(
        Effect.gen(function* () {
          attempts++
          return yield* Effect.fail("refused" as const)
        })
      )
    )
    expect(exit).toEqual(Exit.fail("refused"))
    expect(attempts).toBe(1)
  })

  it("plans a write's statements generically, once per connection, and leaves reads outside it as they were", async () => {
    const plans = await server.runtime.runPromise(
      inTransaction(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`select n from lock_race where id = ${1}`
          // The same connection: the client's prepared statements are this session's.
          return yield* sql<{ generic_plans: number; custom_plans: number; mode: string }>`
            select generic_plans::int, custom_plans::int, current_setting('plan_cache_mode') as mode
            from pg_prepared_statements where statement = 'select n from lock_race where id = $1'`
        })
      )
    )
    // Without it, PostgreSQL plans a statement's first five runs for their values (custom plans).
    expect(plans).toEqual([{ generic_plans: 1, custom_plans: 0, mode: "force_generic_plan" }])
    const outside = await server.runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`
      })
    )
    expect(outside).toEqual([{ mode: "auto" }])
  })
})
