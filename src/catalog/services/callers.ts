import { Clock, Effect, Option } from "effect"
import { CurrentClient } from "../../access/access.ts"
import type { Caller, FrontCaller } from "../../access/caller.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { clientReach } from "../../identity/people/client-reach.ts"
import { PeopleRepo } from "../../identity/people/repo.ts"
import { privateResponse } from "../../shared/cache-headers.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import { ServicesRepo } from "./repo.ts"

/**
 * The client-mode constructors of `Caller` (src/access/caller.ts). They need people (whom a
 * client acts for) and plans (who is a member), so they sit here, the lowest context that has
 * both. A client-mode answer depends on the caller: each marks the response private.
 */

/** A member today, in the business's calendar (plans' dates are business-local). */
const memberToday = Effect.fn("Callers.memberToday")(function* (personId: number) {
  const business = yield* CurrentBusiness
  const today = localDateAt(yield* Clock.currentTimeMillis, business.time_zone)
  return yield* (yield* ServicesRepo).isMember({ businessId: business.id, personId, date: today })
})

/**
 * Client mode acting for a person: a `client_id` call is a 401, an account without a person
 * here a 404 (people's `clientReach`).
 */
export const clientCaller = Effect.gen(function* () {
  yield* privateResponse
  const reach = yield* clientReach
  const isMember = yield* memberToday(reach.selfId)
  return { _tag: "Client", personId: reach.selfId, household: reach.personIds, isMember } satisfies Caller as Caller
})

/** Client mode as it looks: the token's person when there is one, else a visitor (never refused). */
export const frontCaller = Effect.gen(function* () {
  yield* privateResponse
  const client = yield* CurrentClient
  const personId = Option.getOrNull(Option.flatMap(client.grant, (grant) => grant.personId))
  if (personId === null) return { _tag: "Visitor" } satisfies FrontCaller as FrontCaller
  const business = yield* CurrentBusiness
  const dependents = yield* (yield* PeopleRepo).dependents({ businessId: business.id, id: personId })
  const isMember = yield* memberToday(personId)
  return { _tag: "Client", personId, household: [personId, ...dependents], isMember } satisfies FrontCaller as FrontCaller
})
