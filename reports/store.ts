// DuckDB (≈ 30 MiB resident once loaded) is imported when a store is first opened, not with the
// module: most processes that load this code never open one (an API process without reports).
import { Context, Data, Effect, Layer, type Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppConfig, type AppConfigShape } from "../src/platform/config.ts"
import { type Remembered, STATEMENTS_KEPT, StoreConnection } from "./store-connection.ts"
import { READER_LIMITS, type ReaderLimits, type StoreInstances, openStoreFile, readerLimits } from "./store-files.ts"
import { type CurrentGeneration, makeCurrentReader } from "./sync/generations.ts"
import { STORE_SCHEMA } from "./sync/store-tables.ts"

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

/** Which data a read saw: the generation, and PostgreSQL's clock at its last sync. */
export interface DataAsOf {
  readonly generation: number
  /** `synced_at` of the pointer: a refresh that found nothing changed moves it on the same file. */
  readonly syncedAt: string
}

/** A connection held for a scope, and the data it reads. */
export interface HeldConnection {
  readonly connection: StoreConnection
  readonly asOf: DataAsOf
}

export interface ReportStoreShape {
  /** Runs `use` on a connection to the current generation (fails when none has been built yet). */
  readonly read: <A>(use: (connection: StoreConnection, asOf: DataAsOf) => Promise<A>) => Effect.Effect<A, ReportStoreUnavailable>
  /**
   * A connection to the current generation for as long as the caller's scope lasts: an export
   * streams its rows after its handler returned. Whatever still runs on it when the scope
   * closes is interrupted before the connection goes back to the generation's idle ones.
   */
  readonly hold: Effect.Effect<HeldConnection, ReportStoreUnavailable, Scope.Scope>
  readonly dir: string
  /** The only folder readers may write into (a Parquet export's temporary file): this process's own. */
  readonly exportDir: string
}

export class ReportStore extends Context.Service<ReportStore, ReportStoreShape>()("studio/ReportStore") {
  static readonly layer = Layer.effect(ReportStore)(
    Effect.gen(function* () {
      const config = yield* AppConfig
      // Per process: server processes share the data folder; a file left by a crash is removed by the next process of that pid.
      const exportDir = path.join(config.dataDir, "report-exports", String(process.pid))
      fs.rmSync(exportDir, { recursive: true, force: true })
      fs.mkdirSync(exportDir, { recursive: true })
      const store = makeReader(reportsDir(config), readerLimits(config), [exportDir])
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          store.close()
          fs.rmSync(exportDir, { recursive: true, force: true })
        }))
      return ReportStore.of({
        dir: store.dir,
        exportDir,
        hold: Effect.acquireRelease(
          Effect.flatMap(Effect.promise(() => store.acquire()), (open) =>
            open === undefined
              ? Effect.fail(new ReportStoreUnavailable())
              : Effect.tryPromise(() => store.connect(open)).pipe(
                  Effect.map((connection) => ({ open, connection })),
                  Effect.onError(() => Effect.sync(() => store.release(open))),
                  Effect.orDie
                )),
          ({ open, connection }) =>
            Effect.promise(async () => {
              const usable = await connection.settle()
              if (usable) store.putBack(open, connection)
              else connection.close()
              store.release(open)
            })
        ).pipe(Effect.map(({ open, connection }): HeldConnection => ({ connection, asOf: { generation: open.generation, syncedAt: open.syncedAt } }))),
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

/** Connections a generation keeps for the next queries; more are closed as their queries end. */
const IDLE_CONNECTIONS_KEPT = 4

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

export const makeReader = (dir: string, limits: ReaderLimits = READER_LIMITS, writable: ReadonlyArray<string> = []) => {
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
      const instances = await openStoreFile(path.join(dir, pointer.file), limits, writable)
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
