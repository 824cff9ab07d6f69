import { Context, Effect, Layer, Metric } from "effect"
import { SqlClient, SqlConnection } from "effect/sql"
import { AppConfig } from "../config.ts"
import { NO_CONTEXT } from "./context.ts"
import { sampleAtScrape } from "./process.ts"

/**
 * Callers waiting for a connection of this process's Effect SQL pool (@effect/sql-pg), read at
 * each scrape: the pool itself is private to the driver (it exposes no `Pool.stats`), so the
 * waits are counted where connections are asked for: a statement through the client's borrower
 * (or acquirer), a transaction through `withTransaction`, both wrapped in the client the services
 * get. A statement inside a transaction gets the transaction's connection at once and is counted
 * for no time.
 * Installed only when METRICS_PORT is set: without a listener nobody reads it.
 */
const waitingGauge = Metric.gauge("studio_db_pool_waiting_clients", {
  description: "Statements and transactions of this process waiting for a connection of its PostgreSQL pool (the API's Effect SQL pool)"
})

let waiting = 0

/** Counts the caller as waiting from now until `got` is called (or the effect ends). */
const countWait = <A, E, R>(acquire: (got: () => void) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    waiting++
    let pending = true
    const got = () => {
      if (pending) {
        pending = false
        waiting--
      }
    }
    return Effect.ensuring(acquire(got), Effect.sync(got))
  })

const countBorrower = (borrower: SqlConnection.Borrower): SqlConnection.Borrower => (f) =>
  countWait((got) =>
    borrower((connection) => {
      got()
      return f(connection)
    })
  )

const countAcquirer = (acquirer: SqlConnection.Acquirer): SqlConnection.Acquirer =>
  countWait((got) => Effect.tap(acquirer, () => Effect.sync(got)))

/** A statement's own connection source: effect/sql's StatementImpl fields, read when it runs. */
interface StatementSources {
  acquirer: SqlConnection.Acquirer
  borrower: SqlConnection.Borrower | undefined
}

/**
 * The client with its waits counted: each statement it makes (`sql\`...\``) gets the client's
 * borrower and acquirer wrapped once (two comparisons a statement; a statement transformer
 * would build a statement constructor per execution), and `withTransaction` counts the wait for
 * the transaction's connection. Everything else is the client's own.
 */
const countWaits = (client: SqlClient.SqlClient): SqlClient.SqlClient => {
  const withTransaction: SqlClient.SqlClient["withTransaction"] = (effect) =>
    countWait((got) => client.withTransaction(Effect.suspend(() => (got(), effect))))
  let original: StatementSources | undefined
  let wrapped: StatementSources | undefined
  return new Proxy(client, {
    apply: (target, thisArg, args) => {
      const made: unknown = Reflect.apply(target, thisArg, args)
      // `sql("name")` makes an identifier, not a statement: left alone.
      if (typeof made !== "object" || made === null || !("acquirer" in made)) return made
      const statement = made as StatementSources
      if (original === undefined) {
        original = { acquirer: statement.acquirer, borrower: statement.borrower }
        wrapped = {
          acquirer: countAcquirer(statement.acquirer),
          borrower: statement.borrower === undefined ? undefined : countBorrower(statement.borrower)
        }
      }
      if (statement.acquirer === original.acquirer) statement.acquirer = wrapped!.acquirer
      if (statement.borrower !== undefined && statement.borrower === original.borrower) statement.borrower = wrapped!.borrower
      return statement
    },
    get: (target, key, receiver) => (key === "withTransaction" ? withTransaction : Reflect.get(target, key, receiver))
  })
}

/** Replaces the SqlClient it is given by one that counts its waits (with METRICS_PORT set). */
export const CountPoolWaitsLive = Layer.effectContext(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const context = Context.pick(SqlClient.SqlClient)(yield* Effect.context<SqlClient.SqlClient>())
    if (config.metricsPort === undefined) return context
    yield* Effect.acquireRelease(
      Effect.sync(() => sampleAtScrape(() => waitingGauge.updateUnsafe(waiting, NO_CONTEXT))),
      (stop) => Effect.sync(stop)
    )
    return Context.add(context, SqlClient.SqlClient, countWaits(Context.get(context, SqlClient.SqlClient)))
  })
)
