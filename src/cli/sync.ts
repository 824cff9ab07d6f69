import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { runReportSync } from "../../reports/sync/run.ts"
import { migrateDatabase } from "../platform/startup.ts"
import { printJson, withServices } from "./support.ts"

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
        yield* printJson(summary)
      })
    )
).pipe(Command.withDescription("Sync the report store from PostgreSQL now (prints a summary as JSON)"))
