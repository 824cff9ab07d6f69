import { Effect } from "effect"
import { Command } from "effect/cli"
import { readCatalogAt } from "../../platform/citus/catalog.ts"
import { checkSchema } from "../../platform/citus/check.ts"
import { citusPlan } from "../../platform/citus/plan.ts"
import { DatabaseUrl } from "../../platform/database.ts"
import { migrateDatabase } from "../../platform/startup.ts"
import { printLine, userError, withServices } from "./support.ts"

/**
 * `studio citus-plan`: the SQL that places the migrated schema on a Citus coordinator, from the
 * list of src/platform/citus/tables.ts and the database's catalogs (`... | psql` on the
 * coordinator). A schema that cannot be distributed prints its problems instead, exit code 1.
 */
export const citusPlanCommand = Command.make("citus-plan", {}, () =>
  withServices(
    Effect.gen(function* () {
      yield* migrateDatabase
      const url = yield* DatabaseUrl
      const catalog = yield* Effect.tryPromise(() => readCatalogAt(url)).pipe(Effect.orDie)
      const problems = checkSchema(catalog)
      if (problems.length > 0) {
        return yield* userError(`the schema cannot be distributed on Citus:\n${problems.map((p) => `  - ${p}`).join("\n")}`)
      }
      yield* printLine(citusPlan(catalog).join("\n"))
    })
  )).pipe(
  Command.withDescription(
    "Print the create_reference_table / create_distributed_table statements that move the schema onto Citus, in dependency order"
  )
)
