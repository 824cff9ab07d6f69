import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentAccount } from "../../access/access.ts"
import { mailLinkOrigin, sendMail } from "../../platform/mail/service.ts"
import { mailRequestRefusal } from "../../platform/mail/throttle.ts"
import { requestPasswordReset } from "../oauth/service.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { RequestContext } from "../../shared/request-context.ts"
import { formatTimestamp } from "../../shared/schemas.ts"
import { AccountTokensRepo, emailConfirmationLink } from "../../access/account-tokens.ts"
import type { AccountBusinessesQuery } from "./model.ts"
import { AccountsRepo } from "./repo.ts"
import { frontPeopleOf } from "../people/service.ts"
import { AccountRefusals } from "./refusals.ts"

export const getAccount = Effect.fn("Accounts.get")(function* () {
  const caller = yield* CurrentAccount
  const account = yield* (yield* AccountsRepo).find({ accountId: caller.accountId })
  if (!account) return yield* Effect.die(new Error(`token ${caller.tokenId} names a missing account`))
  return {
    accounts: [{ ...account, email_confirmed_at: account.email_confirmed_at ? formatTimestamp(account.email_confirmed_at) : null }]
  }
})

export const listAccountBusinesses = Effect.fn("Accounts.businesses")(function* (query: AccountBusinessesQuery) {
  const caller = yield* CurrentAccount
  const page = pageOf(query, 100)
  const { rows, total } = yield* (yield* AccountsRepo).businesses({ accountId: caller.accountId, page })
  return { businesses: rows, ...(yield* pageLinks(page, total)) }
})

/** Every person record of the account, as client mode shows it, with its business. */
export const listAccountPeople = Effect.fn("Accounts.people")(function* () {
  const caller = yield* CurrentAccount
  const memberships = yield* (yield* AccountsRepo).people({ accountId: caller.accountId })
  const people = []
  for (const businessId of new Set(memberships.map((m) => m.business_id))) {
    const inBusiness = memberships.filter((m) => m.business_id === businessId)
    const records = yield* frontPeopleOf(businessId, inBusiness.map((m) => m.person_id))
    for (const record of records) people.push({ ...record, business_id: businessId, subdomain: inBusiness[0]!.subdomain })
  }
  return { people }
})

export const sendConfirmation = Effect.fn("Accounts.sendConfirmation")(function* () {
  const caller = yield* CurrentAccount
  const context = yield* RequestContext
  const account = yield* (yield* AccountsRepo).find({ accountId: caller.accountId })
  if (!account || account.email_confirmed_at !== null) return {}
  const refusedFor = yield* mailRequestRefusal(account.email)
  if (refusedFor !== undefined) return yield* AccountRefusals.mailThrottled.fail({ seconds: refusedFor })
  const origin = yield* mailLinkOrigin
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      const token = yield* (yield* AccountTokensRepo).issue({ accountId: account.id, purpose: "email_confirmation" })
      yield* sendMail({
        template: "email_confirmation",
        to: account.email,
        locale: context.locale,
        params: { name: account.first_name || account.email, link: emailConfirmationLink(origin, token) }
      })
    })
  ).pipe(Effect.orDie)
  return {}
})

export const createPasswordReset = Effect.fn("Accounts.createPasswordReset")(function* (payload: {
  readonly email?: string | undefined
  readonly account?: { readonly email?: string | undefined } | undefined
}) {
  const context = yield* RequestContext
  const email = (payload.email ?? payload.account?.email ?? "").trim()
  if (email.length === 0 || email.length > 254) return {}
  const refusedFor = yield* mailRequestRefusal(email)
  if (refusedFor !== undefined) return yield* AccountRefusals.mailThrottled.fail({ seconds: refusedFor })
  yield* requestPasswordReset(email, context.locale)
  return {}
})

