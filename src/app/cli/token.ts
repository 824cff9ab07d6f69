import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { AccessTokens } from "../../access/tokens.ts"
import { ImportRepo } from "../../tools/import/repo.ts"
import { migrateDatabase } from "../../platform/startup.ts"
import { checkEmail, findBusiness, printLine, userError, withServices } from "./support.ts"

export const token = Command.make(
  "token",
  {
    email: Flag.String("email").pipe(Flag.withDescription("E-mail of the account")),
    business: Flag.optional(Flag.String("business")).pipe(
      Flag.withDescription("Subdomain: the token works only on that business's host (default: an account-level token)")
    )
  },
  (flags) =>
    withServices(
      Effect.gen(function* () {
        const email = yield* checkEmail("--email", flags.email)
        yield* migrateDatabase
        const account = yield* (yield* ImportRepo).findAccountId({ email })
        if (Option.isNone(account)) return yield* userError(`no account with e-mail ${email}`)
        let businessId = Option.none<number>()
        if (Option.isSome(flags.business)) {
          const id = yield* findBusiness(flags.business.value)
          const person = yield* (yield* ImportRepo).findPersonOfAccount({ businessId: id, accountId: account.value })
          if (Option.isNone(person)) {
            return yield* userError(`${email} is not a person in business "${flags.business.value}"`)
          }
          businessId = Option.some(id)
        }
        const issued = yield* (yield* AccessTokens).issue({ accountId: account.value, businessId, applicationId: Option.none() })
        yield* printLine(issued)
      })
    )
).pipe(Command.withDescription("Issue an access token for an account; prints only the token"))
