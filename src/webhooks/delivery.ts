import { Effect, Random } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../platform/config.ts"
import { enqueueJob } from "../platform/jobs.ts"
import { recordWebhookAttempt } from "../platform/metrics/jobs.ts"
import { DeliverWebhookJob } from "./jobs.ts"
import { WebhooksRepo } from "./repo.ts"
import { decryptSecret, standardHeaders } from "./signing.ts"
import { postNotification } from "./transport.ts"
import { currentTime } from "../shared/clock.ts"

/**
 * Delivery: the fan-out job makes one delivery per subscription and enqueues one
 * `deliver_webhook` job for each (job key per delivery). A delivery job claims one attempt,
 * POSTs, then logs it and settles the delivery, or logs it and schedules the next attempt as a
 * new job with a later `run_at` in the same transaction. Every attempt of an event carries the same
 * `webhook-id`, so a receiver can tell a retry from a new event (at-least-once delivery).
 *
 * The retry schedule is ours rather than graphile-worker's exp(min(10, attempt)) backoff, so
 * the log can say when the next attempt is due and the total stays about three days:
 * 14 attempts, the last one 71.6 hours (2.98 days, plus up to 10% jitter) after the first.
 * graphile-worker's own retries remain for failures of the job itself (database down).
 */

/** Seconds to wait after attempt n (index n - 1) before attempt n + 1. */
export const RETRY_DELAYS_SECONDS: ReadonlyArray<number> = [
  5, 60, 300, 1800, 3600, 7200, 14400, 28800, 43200, 43200, 43200, 43200, 28800
]
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1

/** A rotated-out secret keeps signing beside the new one this long. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000

/** One pending job per delivery (graphile-worker job key); repo.fanOut builds the same key in SQL. */
export const deliveryJobKey = (businessId: number, deliveryId: number) => `webhook_delivery:${businessId}:${deliveryId}`
/** Retries of the job itself (the attempt could not be made or recorded), not of the receiver. */
const DELIVERY_JOB_MAX_ATTEMPTS = 10

export const enqueueDelivery = (businessId: number, deliveryId: number, runAt?: Date, lastError?: string) =>
  enqueueJob(
    DeliverWebhookJob,
    { business_id: businessId, delivery_id: deliveryId },
    {
      jobKey: deliveryJobKey(businessId, deliveryId),
      maxAttempts: DELIVERY_JOB_MAX_ATTEMPTS,
      ...(runAt ? { runAt } : {}),
      ...(lastError !== undefined ? { lastError } : {})
    }
  )

/** The receiver's failure in one line, as the next attempt's job carries it (`studio jobs`). */
const attemptError = (attempt: number, statusCode: number | null, error: string | null) =>
  `webhook delivery attempt ${attempt} of ${MAX_ATTEMPTS} failed: ${
    statusCode !== null ? `the receiver answered ${statusCode}` : (error ?? "no answer")
  }`

/** The fan-out of one event: its deliveries and their jobs, in one statement. */
export const fanOutEvent = Effect.fn("Webhooks.fanOut")(function* (businessId: number, eventId: number) {
  const repo = yield* WebhooksRepo
  const deliveries = yield* repo.fanOut({ businessId, eventId, task: DeliverWebhookJob.name, maxAttempts: DELIVERY_JOB_MAX_ATTEMPTS })
  yield* Effect.logDebug("webhook event fanned out").pipe(Effect.annotateLogs({ business_id: businessId, event_id: eventId, deliveries }))
})

const INTERRUPTED = "interrupted: the worker stopped during this attempt"

/** One attempt of a delivery (a `deliver_webhook` job). */
export const deliverWebhook = Effect.fn("Webhooks.deliver")(function* (businessId: number, deliveryId: number) {
  const repo = yield* WebhooksRepo
  const config = yield* AppConfig
  const sql = yield* SqlClient.SqlClient

  const startedAt = (yield* currentTime)
  const work = yield* repo.claimAttempt({ businessId, deliveryId, interrupted: INTERRUPTED })
  if (work === undefined) {
    // Settled already, gone with its subscription, or the subscription is disabled: cancelled.
    yield* repo.cancelPending({ businessId, deliveryId })
    return
  }
  const attempt = work.attempt_count

  const key = yield* repo.secretsKey
  const secrets = [decryptSecret(key, work.secret_encrypted)]
  if (work.previous_secret_encrypted !== null && work.previous_secret_expires_at !== null && work.previous_secret_expires_at > startedAt) {
    secrets.push(decryptSecret(key, work.previous_secret_encrypted))
  }
  const timestamp = Math.floor(startedAt.getTime() / 1000)
  const headers = {
    ...standardHeaders(secrets, work.message_id, timestamp, work.body),
    "user-agent": "StudioService-Webhooks/1"
  }
  const result = yield* Effect.promise((signal) =>
    postNotification(work.target, headers, work.body, { allowPrivate: config.webhooksAllowPrivateTargets, signal })
  )

  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
  const gone = result.statusCode === 410
  const retry = !ok && !gone && attempt < MAX_ATTEMPTS
  const delay = RETRY_DELAYS_SECONDS[attempt - 1] ?? 0
  const jitter = yield* Random.next
  const nextAttemptAt = retry ? new Date(startedAt.getTime() + result.latencyMs + delay * 1000 * (1 + jitter / 10)) : null

  const record = repo.recordAttempt({
    businessId,
    deliveryId,
    attempt: {
      attempt,
      startedAt,
      statusCode: result.statusCode,
      latencyMs: result.latencyMs,
      error: result.error,
      responseBody: result.responseBody
    },
    status: ok ? "succeeded" : retry ? "pending" : "failed",
    nextAttemptAt
  })
  if (ok) {
    // The common case: one statement, no transaction.
    yield* record
  } else {
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* record
        // 410 Gone: the receiver asks us to stop (Standard Webhooks); an owner may re-enable it.
        if (gone) yield* repo.updateSubscription({ businessId, id: work.subscription_id, enabled: "gone" })
        if (nextAttemptAt !== null) {
          yield* enqueueDelivery(businessId, deliveryId, nextAttemptAt, attemptError(attempt, result.statusCode, result.error))
        }
      })
    ).pipe(Effect.orDie)
  }

  recordWebhookAttempt(ok ? "succeeded" : gone ? "gone" : retry ? "retry" : "failed", result.latencyMs / 1000)
  yield* Effect.logInfo("webhook delivery attempt").pipe(
    Effect.annotateLogs({
      business_id: businessId,
      delivery_id: deliveryId,
      webhook_id: work.message_id,
      attempt,
      status_code: result.statusCode ?? "none",
      latency_ms: result.latencyMs,
      outcome: ok ? "succeeded" : gone ? "gone" : retry ? "retry" : "failed",
      ...(result.error ? { error: result.error } : {})
    })
  )
})
