import { Clock, Effect, Option } from "effect"
import { CurrentClient } from "../../access/access.ts"
import type { ClientCaller, FrontCaller } from "../../access/caller.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { clientSelf } from "../../identity/people/client-reach.ts"
import { privateResponse } from "../../shared/cache-headers.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import { ServicesRepo } from "./repo.ts"

/**
 * The client-mode constructors of `Caller` (src/access/caller.ts). A client carries whom they
 * act for (people) and whether they are a member (plans), so the constructors sit here, the
 * lowest context that reads both, and ask for both in one statement. A client-mode answer
 * depends on the caller: each marks the response private.
 */

/** The person's household (them first, then their live dependents) and membership today, in the business's calendar. */
const clientOf = Effect.fn("Callers.client")(function* (personId: number) {
  const business = yield* CurrentBusiness
  const date = localDateAt(yield* Clock.currentTimeMillis, business.time_zone)
  const standing = yield* (yield* ServicesRepo).clientStanding({ businessId: business.id, personId, date })
  return { _tag: "Client", personId, household: [personId, ...standing.dependents], isMember: standing.is_member } satisfies ClientCaller as ClientCaller
})

/**
 * Client mode acting for a person: a `client_id` call is a 401, an account without a person
 * here a 404 (people's `clientSelf`).
 */
export const clientCaller = Effect.gen(function* () {
  yield* privateResponse
  const personId = yield* clientSelf
  return yield* clientOf(personId)
})

/** Client mode as it comes: the token's person when there is one, else a visitor (never refused). */
export const frontCaller = Effect.gen(function* () {
  yield* privateResponse
  const client = yield* CurrentClient
  const personId = Option.getOrNull(Option.flatMap(client.grant, (grant) => grant.personId))
  if (personId === null) return { _tag: "Visitor" } satisfies FrontCaller as FrontCaller
  const caller: FrontCaller = yield* clientOf(personId)
  return caller
})
