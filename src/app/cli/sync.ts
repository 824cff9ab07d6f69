import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { runReportSync } from "../../../reports/sync/run.ts"
import { describeSync, storeStatus } from "../../../reports/sync/store-status.ts"
import { reportsDir } from "../../../reports/store.ts"
import { AppConfig } from "../../platform/config.ts"
import { migrateDatabase } from "../../platform/startup.ts"
import { printJson, withServices } from "./support.ts"

/**
 * `sync [--full]`: the run's summary (`outcome`, `rows`: the rows this run wrote per table,
 * none when nothing changed), then what the store holds after it (`store`: its generation,
 * that generation's age and each report resource's rows), and one line saying both.
 */
export const sync = Command.make(
  "sync",
  {
    full: Flag.Boolean("full").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Rebuild the whole store into a new generation (default: apply the rows changed since the last sync)")
    )
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        yield* migrateDatabase
        const summary = yield* runReportSync(flags.full ? "full" : "incremental")
        const dir = reportsDir(yield* AppConfig)
        const store = yield* Effect.tryPromise(() => storeStatus(dir)).pipe(Effect.orDie)
        yield* printJson({ summary: describeSync(summary, store), ...summary, store })
      })
    )
).pipe(
  Command.withDescription(
    "Sync the report store from PostgreSQL now (prints JSON: what this run changed, the rows the store holds per resource, the generation's age)"
  )
)
