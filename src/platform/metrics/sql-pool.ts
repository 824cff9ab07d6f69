import { Context, Effect, Layer, Metric } from "effect"
import { SqlClient, SqlConnection, Statement } from "effect/sql"
import { AppConfig } from "../config.ts"
import { NO_CONTEXT } from "./context.ts"
import { sampleAtScrape } from "./process.ts"

/**
 * Callers waiting for a connection of this process's Effect SQL pool (@effect/sql-pg), read at
 * each scrape: the pool itself is private to the driver (it exposes no `Pool.stats`), so the
 * waits are counted where connections are asked for. A statement asks through the client's
 * borrower (or acquirer), which a statement transformer wraps; a transaction asks through
 * `withTransaction`, which the client seen by the services wraps. A statement inside a
 * transaction gets the transaction's connection at once and is counted for no time.
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

const counted = new WeakSet<object>()
const wrappers = new WeakMap<object, object>()
const wrapOnce = <T extends object>(original: T, wrap: (original: T) => T): T => {
  if (counted.has(original)) return original
  let wrapped = wrappers.get(original) as T | undefined
  if (wrapped === undefined) {
    wrapped = wrap(original)
    counted.add(wrapped)
    wrappers.set(original, wrapped)
  }
  return wrapped
}

const countBorrower = (borrower: SqlConnection.Borrower): SqlConnection.Borrower => (f) =>
  countWait((got) =>
    borrower((connection) => {
      got()
      return f(connection)
    })
  )

const countAcquirer = (acquirer: SqlConnection.Acquirer): SqlConnection.Acquirer =>
  countWait((got) => Effect.tap(acquirer, () => Effect.sync(got)))

/**
 * Each statement's own connection source, wrapped once per client. The fields are the
 * statement's (`acquirer`, `borrower`: effect/sql's StatementImpl), read right after this runs.
 */
const transformer: Statement.Transformer = (self) => {
  const statement = self as unknown as { acquirer: SqlConnection.Acquirer; borrower: SqlConnection.Borrower | undefined }
  statement.acquirer = wrapOnce(statement.acquirer, countAcquirer)
  if (statement.borrower !== undefined) statement.borrower = wrapOnce(statement.borrower, countBorrower)
  return Effect.succeed(self)
}

/** The client with its transactions' waits counted; everything else is the client's own. */
const countTransactions = (client: SqlClient.SqlClient): SqlClient.SqlClient => {
  const withTransaction: SqlClient.SqlClient["withTransaction"] = (effect) =>
    countWait((got) => client.withTransaction(Effect.suspend(() => (got(), effect))))
  return new Proxy(client, {
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
    return context.pipe(
      Context.add(SqlClient.SqlClient, countTransactions(Context.get(context, SqlClient.SqlClient))),
      Context.add(Statement.CurrentTransformer, transformer)
    )
  })
)
