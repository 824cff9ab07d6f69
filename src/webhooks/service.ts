import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { requireOwner } from "../access/policies.ts"
import { CurrentBusiness } from "../access/tenant.ts"
import { AppConfig } from "../platform/config.ts"
import { type Message, Unprocessable, fail } from "../shared/errors.ts"
import { RequestContext } from "../shared/request-context.ts"
import { formatTimestamp } from "../shared/schemas.ts"
import { PREVIOUS_SECRET_GRACE_MS } from "./delivery.ts"
import type { SubscriptionRow, WebhookCreateDocument, WebhookResource, WebhookUpdateDocument } from "./model.ts"
import { WebhooksRepo } from "./repo.ts"
import { type SubscriptionPatch } from "./subscriptions.repo.ts"
import { encryptSecret, generateSecret } from "./signing.ts"
import { checkTargetAddresses, hostOf, parseTarget } from "./targets.ts"
import { targetRefusals, WebhookRefusals } from "./refusals.ts"

/**
 * Webhook subscriptions (JSON:API 1.0, `/api/v3/webhooks` on the business host). Owners only
 * (spec, Events: "available to developers with an owner account"), and only for a business
 * with the webhooks feature. Another business's subscription ids are not found.
 */

/** Fan-out is one delivery per subscription: a bound keeps one change from becoming thousands of requests. */
export const MAX_SUBSCRIPTIONS_PER_BUSINESS = 100
const MAX_NAME = 200
const MAX_DESCRIPTION = 1000

// ---------------------------------------------------------------------------------------------
// Wire shapes

const selfLink = (origin: string, id: number) => `${origin}/api/v3/webhooks/${id}`

const toResource = (origin: string, row: SubscriptionRow, secret?: string): WebhookResource => ({
  id: String(row.id),
  type: "webhooks",
  links: { self: selfLink(origin, row.id) },
  attributes: {
    account_id: row.created_by_account_id,
    business_id: row.business_id,
    topic: row.topic,
    target: row.target,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    disabled_at: row.disabled_at === null ? null : formatTimestamp(row.disabled_at),
    disabled_reason: row.disabled_reason,
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at),
    ...(secret === undefined ? {} : { secret })
  }
})

// ---------------------------------------------------------------------------------------------
// Rules

/** The target's problems as messages (none: it may be used); resolves its host. */
const checkTarget = Effect.fn("Webhooks.checkTarget")(function* (target: string) {
  const config = yield* AppConfig
  const parsed = parseTarget(target)
  if ("problem" in parsed) {
    return { messages: [targetRefusals[parsed.problem].message({ max: 2048 })], href: target }
  }
  const problem = yield* Effect.promise(() => checkTargetAddresses(parsed.url, config.webhooksAllowPrivateTargets))
  const messages: Array<Message> = problem === undefined ? [] : [targetRefusals[problem].message({ host: hostOf(parsed.url) })]
  return { messages, href: parsed.url.href }
})

const checkText = (field: string, value: string | null | undefined, max: number, messages: Array<Message>) => {
  if (typeof value === "string" && value.length > max) messages.push(WebhookRefusals.fieldTooLong.message({ field, max }))
}

const cleanText = (value: string | null | undefined) => (value === undefined ? undefined : value === null || value.trim() === "" ? null : value.trim())

const requireFeature = Effect.fn("Webhooks.requireFeature")(function* (businessId: number, options: { readonly lock: boolean }) {
  const repo = yield* WebhooksRepo
  if (!(yield* repo.featureEnabled({ businessId, lock: options.lock }))) return yield* WebhookRefusals.webhooksFeatureDisabled.fail()
})

/** The business's subscription, or 404 (another business's ids are not found). */
export const findOwn = Effect.fn("Webhooks.find")(function* (id: number) {
  const business = yield* CurrentBusiness
  const repo = yield* WebhooksRepo
  const row = yield* repo.findSubscription({ businessId: business.id, id })
  if (row === undefined) return yield* WebhookRefusals.webhookNotFound.fail({ id })
  return row
})

// ---------------------------------------------------------------------------------------------
// Endpoints

export const createWebhook = Effect.fn("Webhooks.create")(function* (document: WebhookCreateDocument) {
  const staff = yield* requireOwner
  const business = yield* CurrentBusiness
  const repo = yield* WebhooksRepo
  const sql = yield* SqlClient.SqlClient
  const { origin } = yield* RequestContext
  yield* requireFeature(business.id, { lock: false })

  const attributes = document.data.attributes
  const target = yield* checkTarget(attributes.target)
  const messages = [...target.messages]
  checkText("name", attributes.name, MAX_NAME, messages)
  checkText("description", attributes.description, MAX_DESCRIPTION, messages)
  if (messages.length > 0) return yield* fail(Unprocessable, ...messages)

  const secret = generateSecret()
  const key = yield* repo.secretsKey
  const row = yield* sql.withTransaction(
    Effect.gen(function* () {
      // Holds the business row: a concurrent switch-off waits, then removes this one too, and a
      // concurrent creation counts after this one commits (the cap holds).
      yield* requireFeature(business.id, { lock: true })
      if ((yield* repo.countSubscriptions({ businessId: business.id })).n >= MAX_SUBSCRIPTIONS_PER_BUSINESS) {
        return yield* WebhookRefusals.webhookLimitReached.fail({ max: MAX_SUBSCRIPTIONS_PER_BUSINESS })
      }
      return yield* repo.insertSubscription({
        businessId: business.id,
        createdByStaffMemberId: staff.staffMemberId,
        createdByAccountId: staff.accountId,
        topic: attributes.topic,
        target: target.href,
        name: cleanText(attributes.name) ?? null,
        description: cleanText(attributes.description) ?? null,
        secretEncrypted: encryptSecret(key, secret)
      })
    })
  ).pipe(Effect.catchTag("SqlError", Effect.die))
  return { data: toResource(origin, row, secret) }
})

export const listWebhooks = Effect.fn("Webhooks.list")(function* () {
  yield* requireOwner
  const business = yield* CurrentBusiness
  const repo = yield* WebhooksRepo
  const { origin } = yield* RequestContext
  const rows = yield* repo.listSubscriptions({ businessId: business.id })
  return {
    data: rows.map((row) => toResource(origin, row)),
    links: { self: `${origin}/api/v3/webhooks` },
    meta: { total_count: rows.length }
  }
})

export const getWebhook = Effect.fn("Webhooks.get")(function* (id: number) {
  yield* requireOwner
  const { origin } = yield* RequestContext
  return { data: toResource(origin, yield* findOwn(id)) }
})

export const updateWebhook = Effect.fn("Webhooks.update")(function* (id: number, document: WebhookUpdateDocument) {
  yield* requireOwner
  const business = yield* CurrentBusiness
  const repo = yield* WebhooksRepo
  const { origin } = yield* RequestContext
  const existing = yield* findOwn(id)
  const attributes = document.data.attributes
  const messages: Array<Message> = []
  if (document.data.id !== undefined && document.data.id !== String(id)) messages.push(WebhookRefusals.webhookIdMismatch.message())
  let target: string | undefined
  if (attributes.target !== undefined) {
    const checked = yield* checkTarget(attributes.target)
    messages.push(...checked.messages)
    target = checked.href
  }
  checkText("name", attributes.name, MAX_NAME, messages)
  checkText("description", attributes.description, MAX_DESCRIPTION, messages)
  if (messages.length > 0) return yield* fail(Unprocessable, ...messages)
  const patch: SubscriptionPatch = {
    ...(target === undefined ? {} : { target }),
    ...(attributes.name === undefined ? {} : { name: cleanText(attributes.name) ?? null }),
    ...(attributes.description === undefined ? {} : { description: cleanText(attributes.description) ?? null }),
    ...(attributes.enabled === undefined || attributes.enabled === existing.enabled
      ? {}
      : { enabled: attributes.enabled ? true as const : "manual" as const })
  }
  const row = yield* repo.updateSubscription({ businessId: business.id, id, ...patch })
  if (row === undefined) return yield* WebhookRefusals.webhookNotFound.fail({ id })
  return { data: toResource(origin, row) }
})

export const deleteWebhook = Effect.fn("Webhooks.delete")(function* (id: number) {
  yield* requireOwner
  const business = yield* CurrentBusiness
  const repo = yield* WebhooksRepo
  if (!(yield* repo.deleteSubscription({ businessId: business.id, id }))) return yield* WebhookRefusals.webhookNotFound.fail({ id })
})

/** A new secret, returned once; the old one keeps signing beside it for a day, so receivers can switch. */
export const rotateWebhookSecret = Effect.fn("Webhooks.rotateSecret")(function* (id: number) {
  yield* requireOwner
  const business = yield* CurrentBusiness
  const repo = yield* WebhooksRepo
  const { origin } = yield* RequestContext
  yield* findOwn(id)
  const secret = generateSecret()
  const key = yield* repo.secretsKey
  const now = yield* Clock.currentTimeMillis
  const row = yield* repo.rotateSecret({
    businessId: business.id,
    id,
    secretEncrypted: encryptSecret(key, secret),
    previousExpiresAt: new Date(now + PREVIOUS_SECRET_GRACE_MS)
  })
  if (row === undefined) return yield* WebhookRefusals.webhookNotFound.fail({ id })
  return { data: toResource(origin, row, secret) }
})

// ---------------------------------------------------------------------------------------------
// Operator (CLI)

/**
 * Turns the webhooks feature of a business on or off. Off deletes every subscription of the
 * business (a trigger, with their delivery logs) and so stops further notifications: pending
 * delivery jobs find their delivery gone and end. Returns whether anything changed.
 */
export const setWebhooksFeature = Effect.fn("Webhooks.setFeature")(function* (businessId: number, enabled: boolean) {
  const repo = yield* WebhooksRepo
  return yield* repo.setFeature({ businessId, enabled })
})
