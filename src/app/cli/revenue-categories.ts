import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { migrateDatabase } from "../../platform/startup.ts"
import { renameRevenueCategory } from "../../catalog/revenue-categories/service.ts"
import { findBusiness, printJson, userError, withServices } from "./support.ts"

/**
 * `revenue-categories rename --business S --id N --name NAME`: categories are never deleted, and
 * the HTTP API only reads them (spec); an operator renames one here (or through the import).
 */
const rename = Command.make(
  "rename",
  {
    business: Flag.String("business").pipe(Flag.withDescription("Subdomain of the business")),
    id: Flag.Int("id").pipe(Flag.withDescription("Id of the revenue category (GET /api/v2/desk/revenue_categories)")),
    name: Flag.String("name").pipe(Flag.withDescription("The new name: 1-200 characters, unique in the business"))
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        yield* migrateDatabase
        const businessId = yield* findBusiness(flags.business)
        const renamed = yield* renameRevenueCategory(businessId, flags.id, flags.name).pipe(
          Effect.mapError((problem) =>
            userError(
              problem._tag === "NotFound"
                ? `--id: no revenue category ${flags.id} in business "${flags.business}"`
                : `--name: ${problem.reason}`
            )
          )
        )
        yield* printJson({ revenue_categories: renamed })
      })
    )
).pipe(Command.withDescription("Rename a revenue category of a business (prints it as JSON)"))

export const revenueCategories = Command.make("revenue-categories").pipe(
  Command.withDescription("Manage the revenue categories of businesses"),
  Command.withSubcommands([rename])
)
