import { Effect } from "effect"
import { CurrentBusiness } from "../../access/tenant.ts"
import { clientReach, requireInReach, requireLivePerson } from "../../identity/people/client-reach.ts"
import { privateResponse } from "../../shared/cache-headers.ts"
import { pageLinks, pageOf } from "../../shared/pagination.ts"
import { type WaiverListQuery, toWaiverWire } from "./model.ts"
import { WaiversRepo } from "./repo.ts"

/** A person has a handful of waivers: a page of 100 by default shows them all to clients that never page. */
export const WAIVERS_PER_PAGE = 100

const list = Effect.fn("Waivers.list")(function* (personId: number, query: WaiverListQuery) {
  const business = yield* CurrentBusiness
  const page = pageOf(query, WAIVERS_PER_PAGE)
  const { rows, total } = yield* (yield* WaiversRepo).list({ businessId: business.id, personId, page })
  return { waivers: rows.map(toWaiverWire), ...(yield* pageLinks(page, total)) }
})

/** The token's person or a dependent; anyone else is not found. */
export const listFrontWaivers = Effect.fn("Waivers.frontList")(function* (personId: number, query: WaiverListQuery) {
  yield* privateResponse
  yield* requireInReach(yield* clientReach, personId)
  return yield* list(personId, query)
})

export const listDeskWaivers = Effect.fn("Waivers.deskList")(function* (personId: number, query: WaiverListQuery) {
  yield* requireLivePerson(personId)
  return yield* list(personId, query)
})
