import { Effect } from "effect"
import { Command } from "effect/cli"
import { migrateDatabase } from "../../platform/startup.ts"
import { printJson, withServices } from "./support.ts"

export const migrate = Command.make("migrate", {}, () =>
  withServices(
    Effect.gen(function* () {
      const applied = yield* migrateDatabase
      yield* printJson({ applied })
    })
  )).pipe(Command.withDescription("Apply pending database migrations (ours, then graphile-worker's)"))
