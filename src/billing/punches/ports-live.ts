import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Commerce } from "../../enrollment/eligibility/commerce.ts"
import { FormsOfPaymentRepo } from "../forms-of-payment/repo.ts"
import { Memberships } from "../../catalog/services/memberships.ts"
import { VisitPayments } from "../../enrollment/visits/payments.ts"
import { WebhooksRepo } from "../../webhooks/repo.ts"
import { PlansRepo } from "../plans/repo.ts"
import { PunchesRepo } from "./repo.ts"
import { payNewVisits, payVisits, unpayVisits } from "./service.ts"
import { currentTime } from "../../shared/clock.ts"

/**
 * Billing's answers to the ports lower domains declare, provided in src/app/layers.ts:
 * visits' `VisitPayments` (auto-pay, and punches going with deleted visits), eligibility's
 * `Commerce` (plan holders, card holders) and services' `Memberships`.
 */

/** VisitPayments: what it needs is taken when built, so visits' writers run it in any context. */
export const VisitPaymentsLive = Layer.effect(VisitPayments)(
  Effect.gen(function* () {
    // Only these services: the caller's fiber keeps its own (the transaction's connection above all).
    const services = Context.pick(SqlClient.SqlClient, PunchesRepo, PlansRepo, WebhooksRepo)(
      yield* Effect.context<SqlClient.SqlClient | PunchesRepo | PlansRepo | WebhooksRepo>()
    )
    return {
      payVisits: (businessId, visitIds) => payVisits(businessId, visitIds).pipe(Effect.provideContext(services)),
      payNewVisits: (businessId, visits) => payNewVisits(businessId, visits).pipe(Effect.provideContext(services)),
      unpayVisits: (businessId, visitIds) => unpayVisits(businessId, visitIds).pipe(Effect.provideContext(services))
    }
  })
)

/**
 * Commerce: plan holders by the automatic choice's rules, on the target's business-local date
 * (today without one); card holders are the people with a credit card form of payment on file.
 */
export const CommerceLive = Layer.effect(Commerce)(
  Effect.gen(function* () {
    const repo = yield* PunchesRepo
    const forms = yield* FormsOfPaymentRepo
    return {
      planHolders: (businessId, personIds, target) =>
        Effect.gen(function* () {
          const at = target.at ?? (yield* currentTime)
          const date = yield* repo.localDate({ businessId, at })
          return yield* repo.planHolders({
            businessId,
            ids: personIds,
            coverage: {
              serviceId: target.serviceId,
              locationId: target.locationId,
              staffMemberIds: target.staffMemberIds,
              date
            }
          })
        }),
      cardHolders: (businessId, personIds) => forms.cardHolders({ businessId, personIds })
    }
  })
)

/** Memberships: src/shared/plan-rules.ts `memberOn`. */
export const MembershipsLive = Layer.effect(Memberships)(
  Effect.gen(function* () {
    const repo = yield* PunchesRepo
    return { members: (businessId, personIds, date) => repo.members({ businessId, ids: personIds, date }) }
  })
)
