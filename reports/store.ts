// DuckDB (≈ 30 MiB resident once loaded) is imported when a store is first opened, not with the
// module: most processes that load this code never open one (an API process without reports).
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement, DuckDBValue } from "@duckdb/node-api"
import { Context, Data, Effect, Layer } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import { AppConfig, type AppConfigShape } from "../src/platform/config.ts"
import type { CompiledSql } from "./compile.ts"
import type { ParamValue } from "./normalize.ts"
import { type CurrentGeneration, makeCurrentReader } from "./sync/generations.ts"
import { DUCKDB_OPTIONS, STORE_SCHEMA } from "./sync/sync.ts"

/**
 * The reading side of the report store. Each published generation is opened read-only in
 * its own DuckDB instance (and a one-thread one for small statements, QUICK_READER_OPTIONS);
 * when `current.json` names a newer one, new queries go there and the old instances close
 * once their last query ends, so a switch never interrupts a query
 * and a query never sees a half-built store. Readers never write, so any number of server
 * processes can read while the worker builds the next generation in another file.
 *
 * Connections are kept between queries (a few idle per generation), each with the statements
 * it prepared: the catalog compiles the same SQL text for the same question (values are
 * parameters), and a new connection plus a new plan cost about 1 ms, as much as a page query.
 */

export class ReportStoreUnavailable extends Data.TaggedError("ReportStoreUnavailable")<{}> {}

/** Which data a read saw (issue 32): the generation, and PostgreSQL's clock at its last sync. */
export interface DataAsOf {
  readonly generation: number
  /** `synced_at` of the pointer: a refresh that found nothing changed moves it on the same file. */
  readonly syncedAt: string
}

export interface ReportStoreShape {
  /** Runs `use` on a connection to the current generation (fails when none has been built yet). */
  readonly read: <A>(use: (connection: StoreConnection, asOf: DataAsOf) => Promise<A>) => Effect.Effect<A, ReportStoreUnavailable>
  readonly dir: string
}

export class ReportStore extends Context.Service<ReportStore, ReportStoreShape>()("studio/ReportStore") {
  static readonly layer = Layer.effect(ReportStore)(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const store = makeReader(reportsDir(config), readerLimits(config))
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
                    const asOf: DataAsOf = { generation: open.generation, syncedAt: open.syncedAt }
                    const connection = await store.connect(open)
                    try {
                      return await use(connection, asOf)
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
 * read the store, and a mistake cannot turn into file access. A query without ORDER BY reads
 * rows in the table's order (DuckDB's default, relied on by pages of the newest rows).
 */
const READER_OPTIONS = {
  ...DUCKDB_OPTIONS,
  access_mode: "READ_ONLY",
  enable_external_access: "false",
  preserve_insertion_order: "true"
} as const

/**
 * What the main reader of a generation may use (issue 29): without a limit DuckDB takes 80 % of
 * the machine's memory and every core, and one query of 50,000 columns reached 18.8 GiB. A query
 * that needs more fails (a 500, logged) instead of taking the API process and its neighbours.
 * 2 GB is several times what the largest report of the 5-million store needs; threads beyond 4
 * gain little on report pages and take cores from the requests served beside them.
 */
export interface ReaderLimits {
  /** DuckDB size, e.g. `2GB`. */
  readonly memoryLimit: string
  readonly threads: number
}
export const READER_LIMITS: ReaderLimits = { memoryLimit: "2GB", threads: Math.min(4, os.availableParallelism()) }

export const readerLimits = (config: AppConfigShape): ReaderLimits => ({
  memoryLimit: config.reportReaderMemoryLimit ?? READER_LIMITS.memoryLimit,
  threads: config.reportReaderThreads ?? READER_LIMITS.threads
})

/**
 * The generation's second instance, on the same file, for small statements (a first page of
 * the newest rows, its bound): one thread. A query of a few hundred stored rows spends more
 * handing its work to another thread and waiting for it than it saves (0.5 → 0.3 ms for the
 * newest invoices' page on the 5-million store). Its memory is bounded: it reads small tables.
 */
const QUICK_READER_OPTIONS = { ...READER_OPTIONS, threads: "1", memory_limit: "256MB" } as const

/** A generation's two instances: `instance` for every query, `quick` for small statements. */
export interface StoreInstances {
  readonly instance: DuckDBInstance
  readonly quick: DuckDBInstance
}

/** Opens a store file read-only, as readers do (the benchmark's raw side too). */
export const openStoreFile = async (file: string, limits: ReaderLimits = READER_LIMITS): Promise<StoreInstances> => {
  const { DuckDBInstance } = await import("@duckdb/node-api")
  const instance = await DuckDBInstance.create(file, { ...READER_OPTIONS, memory_limit: limits.memoryLimit, threads: String(limits.threads) })
  try {
    return { instance, quick: await DuckDBInstance.create(file, QUICK_READER_OPTIONS) }
  } catch (error) {
    instance.closeSync()
    throw error
  }
}

/** Where a statement runs: on the generation's instance, or its one-thread instance (QUICK_READER_OPTIONS). */
export type Lane = "parallel" | "quick"

/** Statements a connection keeps prepared (the least recently used is dropped beyond it). */
const STATEMENTS_KEPT = 64
/** Connections a generation keeps for the next queries; more are closed as their queries end. */
const IDLE_CONNECTIONS_KEPT = 4
/** Remembered answers a generation keeps (one per resource and scope asked); all are dropped beyond it. */
const REMEMBERED_KEPT = 10_000

type Remembered = Map<string, Promise<string | null>>

/**
 * A connection to a store, with the statements it prepared, by lane and SQL text. With `kept` 0
 * every statement is prepared for one run and dropped (a one-off query, the benchmark's raw
 * side). One query at a time: the store hands a connection to one reader until it is put back.
 */
export class StoreConnection {
  readonly connection: DuckDBConnection
  /** The connection of the quick lane; without one, quick statements run on `connection`. */
  private readonly quick: DuckDBConnection | undefined
  private readonly kept: number
  private readonly prepared = new Map<string, DuckDBPreparedStatement>()
  private readonly remembered: Remembered
  /** `remembered`: answers shared by the connections to one generation (a store never changes). */
  constructor(connection: DuckDBConnection, kept: number = STATEMENTS_KEPT, remembered: Remembered = new Map(), quick?: DuckDBConnection) {
    this.connection = connection
    this.kept = kept
    this.remembered = remembered
    this.quick = quick
  }

  /** A connection to each of a generation's instances. */
  static async open(instances: StoreInstances, kept: number = STATEMENTS_KEPT, remembered: Remembered = new Map()): Promise<StoreConnection> {
    const connection = await instances.instance.connect()
    try {
      return new StoreConnection(connection, kept, remembered, await instances.quick.connect())
    } catch (error) {
      connection.closeSync()
      throw error
    }
  }

  /**
   * The first value of a statement's first row as text (null when none), asked once per
   * generation: a fact of the store itself, such as a business's newest-rows bound.
   */
  remember(statement: CompiledSql, lane: Lane = "parallel"): Promise<string | null> {
    const key = `${statement.sql}\u0000${JSON.stringify(statement.params)}`
    let answer = this.remembered.get(key)
    if (answer === undefined) {
      if (this.remembered.size >= REMEMBERED_KEPT) this.remembered.clear()
      answer = this.execute(statement, lane).then((rows) => {
        const value = rows[0]?.[0]
        return value === null || value === undefined ? null : String(value)
      })
      answer.catch(() => this.remembered.delete(key))
      this.remembered.set(key, answer)
    }
    return answer
  }

  /** Runs a compiled statement, its values written in as literals (`withLiterals`), and returns its rows. */
  async execute(statement: CompiledSql, lane: Lane = "parallel"): Promise<ReadonlyArray<ReadonlyArray<DuckDBValue>>> {
    const inlined = withLiterals(statement)
    const sql = inlined ?? statement.sql
    const on = lane === "quick" && this.quick ? this.quick : this.connection
    const key = on === this.connection ? sql : `quick\u0000${sql}`
    // With the query's clock written in (`$now`, to the millisecond) the text never repeats:
    // kept, it would only push out statements that do.
    const repeats = inlined === undefined || !("now" in statement.params)
    const cached = this.prepared.get(key)
    // Taken out while it runs, put back last: the map's order is the order of use.
    this.prepared.delete(key)
    const prepared = cached ?? (await on.prepare(sql))
    let keep = false
    try {
      if (inlined === undefined) prepared.bind({ ...statement.params })
      // The result is materialized: its chunks are read without a round trip each.
      const result = await prepared.run()
      const rows: Array<Array<DuckDBValue>> = []
      for (let i = 0; i < result.chunkCount; i++) result.getChunk(i).appendToRows(rows)
      keep = this.kept > 0 && repeats
      return rows
    } finally {
      if (keep) this.keep(key, prepared)
      else prepared.destroySync()
    }
  }

  private keep(key: string, prepared: DuckDBPreparedStatement) {
    this.prepared.set(key, prepared)
    if (this.prepared.size <= this.kept) return
    const [oldest, statement] = this.prepared.entries().next().value!
    this.prepared.delete(oldest)
    statement.destroySync()
  }

  /** How many statements this connection keeps prepared now. */
  get keptStatements(): number {
    return this.prepared.size
  }

  close() {
    for (const statement of this.prepared.values()) statement.destroySync()
    this.prepared.clear()
    this.connection.closeSync()
    this.quick?.closeSync()
  }
}

/**
 * A compiled statement's text with its parameters written in as literals, or undefined when a
 * value cannot be (a NUL character): the statement then runs with bound parameters.
 *
 * DuckDB plans a statement that has parameters again at every run (since 1.5 it prefers a new
 * plan with the values to a cached one), about 0.8 ms of a 2 ms page; the same text with
 * literals is planned once and kept. Each value becomes a quoted literal cast to the type
 * DuckDB binds it as (node-api's typeForValue), so the compiled CASTs see what they saw: in
 * DuckDB's standard strings a doubled quote is the only escape, so no value can leave its
 * quotes. Only `$name` tokens the parameters name are replaced; the compiler writes no other.
 */
export const withLiterals = (statement: CompiledSql): string | undefined => {
  const literals = new Map<string, string>()
  for (const [name, value] of Object.entries(statement.params)) {
    const literal = literalOf(value)
    if (literal === undefined) return undefined
    literals.set(name, literal)
  }
  return statement.sql.replace(PARAMETER, (token, name: string) => literals.get(name) ?? token)
}

const PARAMETER = /\$([A-Za-z_][A-Za-z0-9_]*)/g

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`

const literalOf = (value: ParamValue): string | undefined => {
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false"
    case "number":
      if (!Number.isFinite(value)) return undefined
      if (!Number.isInteger(value)) return `CAST(${quoted(String(value))} AS DOUBLE)`
      return `CAST(${quoted(String(value))} AS ${value >= -2_147_483_648 && value <= 2_147_483_647 ? "INTEGER" : "BIGINT"})`
    case "string":
      return value.includes("\u0000") ? undefined : quoted(value)
  }
}

interface OpenGeneration extends StoreInstances {
  readonly generation: number
  readonly file: string
  /** The pointer's `synced_at` when it last named this file (moved by refreshes that changed nothing). */
  syncedAt: string
  /** Connections no query uses now, ready for the next. */
  readonly idle: Array<StoreConnection>
  readonly remembered: Remembered
  active: number
  retired: boolean
}

export const makeReader = (dir: string, limits: ReaderLimits = READER_LIMITS) => {
  const readPointer = makeCurrentReader(dir)
  let current: OpenGeneration | undefined
  // Opening a generation is serialized: concurrent queries after a switch share one instance.
  let switching: Promise<void> = Promise.resolve()

  const closeIdle = (open: OpenGeneration) => {
    for (const connection of open.idle.splice(0)) connection.close()
  }
  const closeInstances = (open: OpenGeneration) => {
    open.quick.closeSync()
    open.instance.closeSync()
  }
  const retire = (open: OpenGeneration) => {
    open.retired = true
    closeIdle(open)
    if (open.active === 0) closeInstances(open)
  }

  const switchTo = (pointer: CurrentGeneration) => {
    switching = switching.then(async () => {
      if (current && current.generation >= pointer.generation) return
      const instances = await openStoreFile(path.join(dir, pointer.file), limits)
      const previous = current
      current = {
        generation: pointer.generation,
        file: pointer.file,
        syncedAt: pointer.synced_at,
        ...instances,
        idle: [],
        remembered: new Map(),
        active: 0,
        retired: false
      }
      if (previous) retire(previous)
    })
    return switching
  }

  return {
    dir,
    acquire: async (): Promise<OpenGeneration | undefined> => {
      // A sync may delete a generation between reading the pointer and opening the file: read it again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const pointer = readPointer()
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
          if (pointer && pointer.file === current.file) current.syncedAt = pointer.synced_at
          current.active += 1
          return current
        }
      }
      return undefined
    },
    /** A connection to an acquired generation: one kept from an earlier query, else a new one. */
    connect: async (open: OpenGeneration): Promise<StoreConnection> =>
      open.idle.pop() ?? (await StoreConnection.open(open, STATEMENTS_KEPT, open.remembered)),
    /** Gives a connection back once its query ended (kept for the next, unless the generation is retired). */
    putBack: (open: OpenGeneration, connection: StoreConnection) => {
      if (open.retired || open.idle.length >= IDLE_CONNECTIONS_KEPT) connection.close()
      else open.idle.push(connection)
    },
    release: (open: OpenGeneration) => {
      open.active -= 1
      if (open.retired && open.active === 0) closeInstances(open)
    },
    close: () => {
      if (current) retire(current)
      current = undefined
    }
  }
}
