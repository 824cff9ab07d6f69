import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentBusiness } from "../../access/tenant.ts"
import { AppConfig } from "../../platform/config.ts"
import { RequestContext, jobRequestContext } from "../../shared/request-context.ts"
import { localDateAt } from "../../shared/zoned-time.ts"
import { emitWebhookEvent } from "../../webhooks/emit.ts"
import { PlansRepo } from "./repo.ts"
import { planPayload } from "./service.ts"

/**
 * plan.ended: a scheduled job (workers/crontab.ts) announces, once each, the plans whose last day
 * (end_date, inclusive) is before the business-local today. Every ended plan is marked
 * (`ended_notified_at`), whether or not anyone listens, so a webhook added later never receives a
 * backlog of old endings. Each batch is one transaction: the plans are claimed (rows locked,
 * concurrent runs skip them) and their events stored together, so a crash before commit leaves
 * them to the next run and a commit is never repeated. A plan whose end date moves later is
 * announced again when it ends (the update clears the mark).
 */
export const ENDED_TOPIC = "plan.ended"
const BATCH = 100

export const emitEndedPlans = Effect.fn("Plans.emitEnded")(function* () {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* PlansRepo
  const config = yield* AppConfig
  const now = yield* Clock.currentTimeMillis
  let announced = 0
  for (const business of yield* repo.dueBusinesses({ now: new Date(now) })) {
    const context = yield* jobRequestContext(business, config.baseDomain)
    const today = localDateAt(now, business.time_zone)
    while (true) {
      const ids = yield* sql.withTransaction(
        Effect.gen(function* () {
          const claimed = yield* repo.claimEnded({ businessId: business.id, today, limit: BATCH, now: new Date(now) })
          for (const id of claimed) {
            yield* emitWebhookEvent(business.id, ENDED_TOPIC, planPayload(id))
          }
          return claimed
        }).pipe(Effect.provideService(CurrentBusiness, business), Effect.provideService(RequestContext, context))
      ).pipe(Effect.orDie)
      announced += ids.length
      if (ids.length < BATCH) break
    }
  }
  return announced
})
