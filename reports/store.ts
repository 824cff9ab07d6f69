// DuckDB (≈ 30 MiB resident once loaded) is imported when a store is first opened, not with the
// module: most processes that load this code never open one (an API process without reports).
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api"
import { Context, Data, Effect, Layer } from "effect"
import * as path from "node:path"
import { AppConfig, type AppConfigShape } from "../src/platform/config.ts"
import { type CurrentGeneration, readCurrent } from "./sync/generations.ts"
import { DUCKDB_OPTIONS, STORE_SCHEMA } from "./sync/sync.ts"

/**
 * The reading side of the report store. Each published generation is opened read-only in
 * its own DuckDB instance; when `current.json` names a newer one, new queries go there and
 * the old instance closes once its last query ends, so a switch never interrupts a query
 * and a query never sees a half-built store. Readers never write, so any number of server
 * processes can read while the worker builds the next generation in another file.
 */

export class ReportStoreUnavailable extends Data.TaggedError("ReportStoreUnavailable")<{}> {}

export interface ReportStoreShape {
  /** Runs `use` on a connection to the current generation (fails when none has been built yet). */
  readonly read: <A>(use: (connection: DuckDBConnection) => Promise<A>) => Effect.Effect<A, ReportStoreUnavailable>
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
                    const connection = await open.instance.connect()
                    try {
                      return await use(connection)
                    } finally {
                      connection.closeSync()
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

interface OpenGeneration {
  readonly generation: number
  readonly file: string
  readonly instance: DuckDBInstance
  active: number
  retired: boolean
}

export const makeReader = (dir: string) => {
  let current: OpenGeneration | undefined
  // Opening a generation is serialized: concurrent queries after a switch share one instance.
  let switching: Promise<void> = Promise.resolve()

  const retire = (open: OpenGeneration) => {
    open.retired = true
    if (open.active === 0) open.instance.closeSync()
  }

  const switchTo = (pointer: CurrentGeneration) => {
    switching = switching.then(async () => {
      if (current && current.generation >= pointer.generation) return
      const { DuckDBInstance } = await import("@duckdb/node-api")
      const instance = await DuckDBInstance.create(path.join(dir, pointer.file), READER_OPTIONS)
      const previous = current
      current = { generation: pointer.generation, file: pointer.file, instance, active: 0, retired: false }
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
