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
})
