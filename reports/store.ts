// DuckDB (≈ 30 MiB resident once loaded) is imported when a store is first opened, not with the
// module: most processes that load this code never open one (an API process without reports).
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement, DuckDBValue } from "@duckdb/node-api"
import { Context, Data, Effect, Layer } from "effect"
import * as path from "node:path"
import { AppConfig, type AppConfigShape } from "../src/platform/config.ts"
import type { CompiledSql } from "./compile.ts"
import { type CurrentGeneration, readCurrent } from "./sync/generations.ts"
import { DUCKDB_OPTIONS, STORE_SCHEMA } from "./sync/sync.ts"

/**
 * The reading side of the report store. Each published generation is opened read-only in
 * its own DuckDB instance; when `current.json` names a newer one, new queries go there and
 * the old instance closes once its last query ends, so a switch never interrupts a query
 * and a query never sees a half-built store. Readers never write, so any number of server
 * processes can read while the worker builds the next generation in another file.
 *
 * Connections are kept between queries (a few idle per generation), each with the statements
 * it prepared: the catalog compiles the same SQL text for the same question (values are
 * parameters), and a new connection plus a new plan cost about 1 ms, as much as a page query.
 */

export class ReportStoreUnavailable extends Data.TaggedError("ReportStoreUnavailable")<{}> {}

export interface ReportStoreShape {
  /** Runs `use` on a connection to the current generation (fails when none has been built yet). */
  readonly read: <A>(use: (connection: StoreConnection) => Promise<A>) => Effect.Effect<A, ReportStoreUnavailable>
  readonly dir: string
}

export class ReportStore extends Context.Service<ReportStore, ReportStoreShape>()("studio/ReportStore") {
  static readonly layer = Layer.effect(ReportStore)(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const store = makeReader(reportsDir(config))
      yield* Effect.addFinalizer(() => Effect.sync(store.close))
      return ReportStore.of({
        dir: store.dir,
        read: (use) =>
          Effect.flatMap(
            Effect.promise(() => store.acquire()),
            (open) =>
              open === undefined
                ? Effect.fail(new ReportStoreUnavailable())
                : Effect.tryPromise(async () => {
                    const connection = await store.connect(open)
                    try {
                      return await use(connection)
                    } finally {
                      store.putBack(open, connection)
                    }
                  }).pipe(Effect.ensuring(Effect.sync(() => store.release(open))), Effect.orDie)
          )
      })
    })
  )
}

export const reportsDir = (config: AppConfigShape) => path.join(config.dataDir, "reports")

/**
 * Readers cannot write, download extensions nor touch other files: compiled queries only
 * read the store, and a mistake cannot turn into file access.
 */
const READER_OPTIONS = { ...DUCKDB_OPTIONS, access_mode: "READ_ONLY", enable_external_access: "false" } as const

/** Statements a connection keeps prepared (the least recently used is dropped beyond it). */
const STATEMENTS_KEPT = 64
/** Connections a generation keeps for the next queries; more are closed as their queries end. */
const IDLE_CONNECTIONS_KEPT = 4

/**
 * A connection to a store, with the statements it prepared, by SQL text. With `kept` 0 every
 * statement is prepared for one run and dropped (a one-off query, the benchmark's raw side).
 * One query at a time: the store hands a connection to one reader until it is put back.
 */
export class StoreConnection {
  readonly connection: DuckDBConnection
  private readonly kept: number
  private readonly prepared = new Map<string, DuckDBPreparedStatement>()
  constructor(connection: DuckDBConnection, kept: number = STATEMENTS_KEPT) {
    this.connection = connection
    this.kept = kept
  }

  /** Runs a compiled statement (named parameters) and returns its rows. */
  async execute(statement: CompiledSql): Promise<ReadonlyArray<ReadonlyArray<DuckDBValue>>> {
    const cached = this.prepared.get(statement.sql)
    // Taken out while it runs, put back last: the map's order is the order of use.
    this.prepared.delete(statement.sql)
    const prepared = cached ?? (await this.connection.prepare(statement.sql))
    let keep = false
    try {
      prepared.bind({ ...statement.params })
      const rows = (await prepared.runAndReadAll()).getRows()
      keep = this.kept > 0
      return rows
    } finally {
      if (keep) this.keep(statement.sql, prepared)
      else prepared.destroySync()
    }
  }

  private keep(sql: string, prepared: DuckDBPreparedStatement) {
    this.prepared.set(sql, prepared)
    if (this.prepared.size <= this.kept) return
    const [oldest, statement] = this.prepared.entries().next().value!
    this.prepared.delete(oldest)
    statement.destroySync()
  }

  close() {
    for (const statement of this.prepared.values()) statement.destroySync()
    this.prepared.clear()
    this.connection.closeSync()
  }
}

interface OpenGeneration {
  readonly generation: number
  readonly file: string
  readonly instance: DuckDBInstance
  /** Connections no query uses now, ready for the next. */
  readonly idle: Array<StoreConnection>
  active: number
  retired: boolean
}

export const makeReader = (dir: string) => {
  let current: OpenGeneration | undefined
  // Opening a generation is serialized: concurrent queries after a switch share one instance.
  let switching: Promise<void> = Promise.resolve()

  const closeIdle = (open: OpenGeneration) => {
    for (const connection of open.idle.splice(0)) connection.close()
  }
  const retire = (open: OpenGeneration) => {
    open.retired = true
    closeIdle(open)
    if (open.active === 0) open.instance.closeSync()
  }

  const switchTo = (pointer: CurrentGeneration) => {
    switching = switching.then(async () => {
      if (current && current.generation >= pointer.generation) return
      const { DuckDBInstance } = await import("@duckdb/node-api")
      const instance = await DuckDBInstance.create(path.join(dir, pointer.file), READER_OPTIONS)
      const previous = current
      current = { generation: pointer.generation, file: pointer.file, instance, idle: [], active: 0, retired: false }
      if (previous) retire(previous)
    })
    return switching
  }

  return {
    dir,
    acquire: async (): Promise<OpenGeneration | undefined> => {
      // A sync may delete a generation between reading the pointer and opening the file: read it again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const pointer = readCurrent(dir)
        // A store of another release's shape is not read: the next sync rebuilds it (within a minute).
        if (pointer && pointer.schema !== STORE_SCHEMA) return undefined
        if (pointer && (!current || current.file !== pointer.file)) {
          try {
            await switchTo(pointer)
          } catch {
            switching = Promise.resolve()
            continue
          }
        }
        if (current) {
          current.active += 1
          return current
        }
      }
      return undefined
    },
    /** A connection to an acquired generation: one kept from an earlier query, else a new one. */
    connect: async (open: OpenGeneration): Promise<StoreConnection> =>
      open.idle.pop() ?? new StoreConnection(await open.instance.connect()),
    /** Gives a connection back once its query ended (kept for the next, unless the generation is retired). */
    putBack: (open: OpenGeneration, connection: StoreConnection) => {
      if (open.retired || open.idle.length >= IDLE_CONNECTIONS_KEPT) connection.close()
      else open.idle.push(connection)
    },
    release: (open: OpenGeneration) => {
      open.active -= 1
      if (open.retired && open.active === 0) open.instance.closeSync()
    },
    close: () => {
      if (current) retire(current)
      current = undefined
    }
  }
}
