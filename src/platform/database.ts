import { PgClient, PgTypes } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, Redacted, Result } from "effect"
import * as path from "node:path"
import { AppConfig } from "./config.ts"
import { startEmbeddedPostgres } from "./embedded-postgres.ts"
import { CountPoolWaitsLive } from "./metrics/sql-pool.ts"
import { ensureDatabase } from "./migrator.ts"

/**
 * The connection URL of the system of record: `DATABASE_URL` when set, else the embedded
 * PostgreSQL in `{DATA_DIR}/postgres`, started with this layer and stopped when it closes
 * (after the HTTP server and the worker, which are built on top of it).
 */
export class DatabaseUrl extends Context.Service<DatabaseUrl, string>()("studio/DatabaseUrl") {}

export const DatabaseUrlLive = Layer.effect(DatabaseUrl)(
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) return config.databaseUrl.value
    const dataDir = path.join(config.dataDir, "postgres")
    // Joins the cluster another process of the project runs on DATA_DIR, else starts one; on
    // release it stops the cluster only if no other process uses it.
    const server = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => startEmbeddedPostgres({ dataDir, port: config.embeddedPostgresPort }),
        catch: (error) => error
      }),
      (server) => Effect.promise(() => server.stop())
    ).pipe(Effect.orDie)
    const url = server.url("studio")
    yield* Effect.tryPromise(() => ensureDatabase(url)).pipe(Effect.orDie)
    yield* Effect.logInfo(server.started ? "embedded PostgreSQL started" : "joined the embedded PostgreSQL already running").pipe(
      Effect.annotateLogs({ data_dir: server.clusterDir, port: server.port })
    )
    return url
  })
)

/**
 * `bigint` columns (ids, counts) read as JavaScript numbers: ids stay far below 2^53, and the
 * API exposes them as JSON integers.
 */
const int8AsNumber: PgTypes.Codec<number | bigint> = {
  encode: (value) => {
    const bytes = new Uint8Array(8)
    new DataView(bytes.buffer).setBigInt64(0, BigInt(value))
    return Result.succeed(bytes)
  },
  decode: (bytes) => Result.succeed(Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigInt64(0)))
}

export const makePgTypes = (): PgTypes.Registry => {
  const registry = PgTypes.makeRegistry()
  registry.register(PgTypes.OID.int8, int8AsNumber)
  return registry
}

/** The Effect SQL client (its own PostgreSQL wire driver) on the same database. */
const PgLive = Layer.unwrap(
  DatabaseUrl.useSync((url) =>
    PgClient.layer({ url: Redacted.make(url), maxConnections: 20, applicationName: "studio-service", types: makePgTypes() }))
).pipe(Layer.orDie)

/** The client the services use: with METRICS_PORT, one that counts waits for its pool (metrics/sql-pool.ts). */
export const SqlLive = Layer.merge(
  CountPoolWaitsLive,
  Layer.effect(PgClient.PgClient)(Effect.gen(function* () {
    return yield* PgClient.PgClient
  }))
).pipe(Layer.provide(PgLive))
