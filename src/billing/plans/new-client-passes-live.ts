import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentBusiness } from "../../access/tenant.ts"
import { NewClientPasses } from "../../identity/people/new-client-passes.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import { WebhooksRepo } from "../../webhooks/repo.ts"
import { expirationEnd } from "./model.ts"
import { createPersonPlan } from "./packs.ts"
import { PlansRepo } from "./repo.ts"

/**
 * Plans' answer to people's `NewClientPasses` port: each new person gets one free plan of each
 * live product the business marks `new_client_pass`, from today (business-local) to today plus
 * the product's expiration, marked complimentary; plan.created and person_plan.created go out
 * with it. No terms record: nothing is bought.
 */
export const NewClientPassesLive = Layer.effect(NewClientPasses)(
  Effect.gen(function* () {
    // Only these services: the caller's fiber keeps its own (the transaction's connection above all).
    const services = Context.pick(SqlClient.SqlClient, PlansRepo, WebhooksRepo)(
      yield* Effect.context<SqlClient.SqlClient | PlansRepo | WebhooksRepo>()
    )
    return {
      give: (business, personIds) =>
        Effect.gen(function* () {
          if (personIds.length === 0) return
          const products = yield* (yield* PlansRepo).newClientPasses({ businessId: business.id })
          if (products.length === 0) return
          const millis = yield* Clock.currentTimeMillis
          const today = localDateAt(millis, business.time_zone)
          for (const personId of personIds) {
            for (const product of products) {
              yield* createPersonPlan(
                {
                  planProductId: product.id,
                  type: "Pack",
                  name: product.name,
                  description: product.description,
                  priceCents: 0,
                  count: product.count,
                  considerMember: product.consider_member,
                  visitsShared: true,
                  startDate: today,
                  endDate: expirationEnd(today, product.commitment_length, product.commitment_unit),
                  staffMemberId: null,
                  locationId: null,
                  createdByStaffMemberId: null,
                  isComplimentary: true
                },
                [personId],
                null,
                new Date(millis)
              )
            }
          }
        }).pipe(Effect.provideService(CurrentBusiness, business), Effect.provideContext(services))
    }
  })
)
