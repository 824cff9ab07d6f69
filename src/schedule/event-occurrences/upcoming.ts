import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CurrentBusiness } from "../../access/tenant.ts"
import { EventOccurrencesRepo } from "./repo.ts"
import { getDeskOccurrence } from "./service.ts"
import { AppConfig } from "../../platform/config.ts"
import { RequestContext, jobRequestContext } from "../../shared/request-context.ts"
import { emitWebhookEvent } from "../../webhooks/emit.ts"
import { WebhooksRepo } from "../../webhooks/repo.ts"

/**
 * event_occurrence.upcoming: a scheduled job (every 5 minutes, workers/crontab.ts) announces,
 * once each, the active occurrences starting within the next `UPCOMING_WINDOW_HOURS`. Only
 * businesses with an enabled webhook of the topic are looked at, so the job costs one indexed
 * query when nobody listens. Each batch is one transaction: the occurrences are claimed (marked
 * `upcoming_notified_at`, rows locked, concurrent runs skip them) and their events stored
 * together, so a crash before commit leaves them to the next run and a commit is never repeated.
 */
export const UPCOMING_TOPIC = "event_occurrence.upcoming"
export const UPCOMING_WINDOW_HOURS = 24
const BATCH = 100

export const emitUpcomingOccurrences = Effect.fn("Webhooks.emitUpcoming")(function* () {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* WebhooksRepo
  const occurrences = yield* EventOccurrencesRepo
  const config = yield* AppConfig
  const now = yield* Clock.currentTimeMillis
  const window = { from: new Date(now), until: new Date(now + UPCOMING_WINDOW_HOURS * 3_600_000) }
  let announced = 0
  for (const business of yield* repo.subscribedBusinesses({ topic: UPCOMING_TOPIC })) {
    const context = yield* jobRequestContext(business, config.baseDomain)
    while (true) {
      const ids = yield* sql.withTransaction(
        Effect.gen(function* () {
          const claimed = yield* occurrences.claimUpcoming({ businessId: business.id, from: window.from, until: window.until, limit: BATCH })
          for (const id of claimed) {
            yield* emitWebhookEvent(
              business.id,
              UPCOMING_TOPIC,
              getDeskOccurrence(id).pipe(Effect.provideService(CurrentBusiness, business), Effect.provideService(RequestContext, context))
            )
          }
          return claimed
        })
      ).pipe(Effect.orDie)
      announced += ids.length
      if (ids.length < BATCH) break
    }
  }
  return announced
})
