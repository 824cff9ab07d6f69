import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { BusinessRepo } from "../../identity/business/repo.ts"
import type { ImportDocumentInput } from "../../tools/import/model.ts"
import { ImportRepo } from "../../tools/import/repo.ts"
import { importBusiness } from "../../tools/import/service.ts"
import { migrateDatabase } from "../../platform/startup.ts"
import { LOCALES } from "../../shared/locale.ts"
import { importProblems, printJson, withServices } from "./support.ts"

/** `business create` flags by the import-document path they fill, for error messages. */
const BUSINESS_FLAG_PATHS: ReadonlyArray<readonly [string, string]> = [
  ["business.subdomain", "--subdomain"],
  ["business.name", "--name"],
  ["business.time_zone", "--time-zone"],
  ["business.currency_code", "--currency"],
  ["business.default_locale", "--locale"],
  ["staff[0].email", "--owner-email"],
  ["staff[0].first_name", "--owner-first-name"],
  ["staff[0].last_name", "--owner-last-name"]
]
const renameBusinessPaths = (line: string) =>
  BUSINESS_FLAG_PATHS.reduce((text, [path, flag]) => (text.startsWith(`${path}:`) ? flag + text.slice(path.length) : text), line)

const businessCreate = Command.make(
  "create",
  {
    subdomain: Flag.String("subdomain").pipe(Flag.withDescription("Lowercase letters, digits and hyphens; the host is SUBDOMAIN.BASE_DOMAIN")),
    name: Flag.String("name").pipe(Flag.withDescription("The business name")),
    ownerEmail: Flag.String("owner-email").pipe(
      Flag.withDescription("E-mail of the primary owner (an existing account with that address is reused)")
    ),
    ownerFirstName: Flag.optional(Flag.String("owner-first-name")).pipe(
      Flag.withDescription("Owner's first name (default: the part of the e-mail before @)")
    ),
    ownerLastName: Flag.String("owner-last-name").pipe(Flag.withDefault(""), Flag.withDescription("Owner's last name (default: empty)")),
    timeZone: Flag.String("time-zone").pipe(Flag.withDefault("UTC"), Flag.withDescription("IANA time zone, e.g. Europe/Berlin (default: UTC)")),
    currency: Flag.String("currency").pipe(Flag.withDefault("USD"), Flag.withDescription("ISO 4217 currency code (default: USD)")),
    locale: Flag.Literals("locale", LOCALES).pipe(Flag.withDefault("en"), Flag.withDescription("Default locale of the business (default: en)"))
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        yield* migrateDatabase
        const email = flags.ownerEmail.trim()
        const document: ImportDocumentInput = {
          business: {
            subdomain: flags.subdomain.trim().toLowerCase(),
            name: flags.name,
            time_zone: flags.timeZone,
            currency_code: flags.currency.trim().toUpperCase(),
            default_locale: flags.locale
          },
          staff: [
            {
              email,
              first_name: Option.getOrElse(flags.ownerFirstName, () => email.split("@")[0] ?? email),
              last_name: flags.ownerLastName,
              role: "primary_owner"
            }
          ]
        }
        const summary = yield* importBusiness(document).pipe(
          Effect.mapError((error) => importProblems(error, "cannot create the business", renameBusinessPaths))
        )
        const business = yield* (yield* BusinessRepo).find({ businessId: summary.business_id })
        const owner = yield* (yield* ImportRepo).findPersonByEmail({ businessId: summary.business_id, email })
        yield* printJson({ ...business, owner: Option.getOrNull(owner) })
      })
    )
).pipe(Command.withDescription("Create an empty business with its primary owner (prints the business as JSON)"))

export const business = Command.make("business").pipe(
  Command.withDescription("Manage businesses"),
  Command.withSubcommands([businessCreate])
)
