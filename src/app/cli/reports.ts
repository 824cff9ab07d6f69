import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { ReportsRepo } from "../../../reports/repo.ts"
import { isOwner } from "../../access/policies.ts"
import type { StaffRole } from "../../access/tokens.ts"
import { migrateDatabase } from "../../platform/startup.ts"
import { checkEmail, findBusiness, printJson, userError, withServices } from "./support.ts"

/** `reports grant|revoke --business S --email E`: report access for staff below owner (spec: owners by default). */
const reportsAccess = (granted: boolean) =>
  Command.make(
    granted ? "grant" : "revoke",
    {
      business: Flag.String("business").pipe(Flag.withDescription("Subdomain of the business")),
      email: Flag.String("email").pipe(Flag.withDescription("E-mail of the staff member"))
    },
    (flags) =>
      withServices(
        Effect.gen(function* () {
          const email = yield* checkEmail("--email", flags.email)
          yield* migrateDatabase
          const businessId = yield* findBusiness(flags.business)
          const staff = yield* (yield* ReportsRepo).setGrant(businessId, email, granted)
          if (!staff) return yield* Effect.fail(userError(`--email: ${email} is not a staff member of "${flags.business}"`))
          yield* printJson({
            business: flags.business.trim().toLowerCase(),
            email,
            staff_member_id: staff.id,
            granted,
            // Owners read reports whatever their grant.
            can_read_reports: granted || isOwner(staff.role as StaffRole)
          })
        })
      )
  ).pipe(
    Command.withDescription(
      granted
        ? "Let a staff member below owner query the Reporting API (owners always may)"
        : "Take back a staff member's report access (owners keep theirs)"
    )
  )

export const reports = Command.make("reports").pipe(
  Command.withDescription("Manage access to the Reporting API"),
  Command.withSubcommands([reportsAccess(true), reportsAccess(false)])
)
