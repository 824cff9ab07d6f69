import { Effect, Option } from "effect"
import { AUTH_MESSAGES, CurrentClient } from "../../access/access.ts"
import { CurrentBusiness } from "../../access/tenant.ts"
import { Unauthorized } from "../../shared/errors.ts"
import { PeopleRepo } from "./repo.ts"
import { PeopleRefusals } from "./refusals.ts"

/**
 * Whom a client-mode token may act for (spec, Authentication rule 2): the token's person and
 * their live dependents. A `client_id`-only call has nobody (401); an account without a person
 * in this business is not found.
 */
export interface ClientReach {
  readonly selfId: number
  /** The token's person first, then the dependents by id. */
  readonly personIds: ReadonlyArray<number>
}

/** The token's person, without asking for the dependents: the refusals of `clientReach`. */
export const clientSelf = Effect.gen(function* () {
  const client = yield* CurrentClient
  if (Option.isNone(client.grant)) return yield* Effect.fail(new Unauthorized({ error: AUTH_MESSAGES.tokenRequired }))
  const self = client.grant.value.personId
  if (Option.isNone(self)) return yield* PeopleRefusals.personMeNotFound.fail()
  return self.value
})

export const clientReach = Effect.gen(function* () {
  const business = yield* CurrentBusiness
  const self = yield* clientSelf
  const dependents = yield* (yield* PeopleRepo).dependents({ businessId: business.id, id: self })
  return { selfId: self, personIds: [self, ...dependents] } satisfies ClientReach
})

/** The person must be within reach; anyone else (another business's ids too) is not found. */
export const requireInReach = (reach: ClientReach, personId: number) =>
  reach.personIds.includes(personId) ? Effect.void : PeopleRefusals.personNotFound.fail({ id: personId })

/**
 * Staff mode: a live person of the business; anyone else (deleted, another business's) is not found.
 * `hold`, in a transaction that attaches the person to something their deletion checks (a visit, a
 * lease): the person's row is held FOR SHARE until the commit. A deletion locks the person FOR NO
 * KEY UPDATE and then counts their future visits, and the attaching write's foreign-key check
 * (FOR KEY SHARE) does not wait for that lock; holding the row makes one wait for the other, so the
 * deletion counts the new visit, or this finds the person gone.
 */
export const requireLivePerson = Effect.fn("People.requireLive")(function* (personId: number, options: { readonly hold?: boolean } = {}) {
  const business = yield* CurrentBusiness
  const live = yield* (yield* PeopleRepo).existingIds({ businessId: business.id, ids: [personId], lock: options.hold === true })
  if (!live.has(personId)) return yield* PeopleRefusals.personNotFound.fail({ id: personId })
})
