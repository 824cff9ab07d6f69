import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../access/access.ts"
import { docs } from "../shared/docs.ts"
import { BadRequest, Forbidden, NotFound, Unprocessable } from "../shared/errors.ts"
import { IdFromString, positiveIntParam } from "../shared/schemas.ts"
import { AccessRefusals } from "../access/refusals.ts"
import { WebhookRefusals as R } from "./refusals.ts"
import {
  DELIVERY_STATUSES,
  DeliveryDocument,
  DeliveryListDocument,
  JSON_API,
  WEBHOOK_TOPICS,
  WebhookCreateDocument,
  WebhookDocument,
  WebhookListDocument,
  WebhookUpdateDocument
} from "./model.ts"

/**
 * Webhooks API (JSON:API 1.0) on the business host, for owner tokens. Bodies may be sent as
 * `application/vnd.api+json` or `application/json`; answers are `application/vnd.api+json`.
 */

const jsonApi = <S extends Schema.Top>(schema: S) => schema.pipe(HttpApiSchema.asJson({ contentType: JSON_API }))
const payloadOf = <S extends Schema.Top>(schema: S) => [jsonApi(schema), schema] as const

const errors = [BadRequest, Forbidden, NotFound, Unprocessable]
/** Every endpoint is for owners; a webhook of another business is not found. */
const owned = [AccessRefusals.ownerRequired, R.webhookNotFound]
const targetRules = [R.webhookTargetInvalid, R.webhookTargetScheme, R.webhookTargetCredentials, R.webhookTargetUnresolvable, R.webhookTargetPrivate]

export const WebhooksApi = HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/api/v3/webhooks", {
      payload: payloadOf(WebhookCreateDocument),
      success: jsonApi(WebhookDocument).pipe(HttpApiSchema.status(201)),
      error: errors
    }).annotateMerge(
      docs(
        "Subscribe to a topic",
        `Topics: ${WEBHOOK_TOPICS.join(", ")}. The answer carries the signing secret (\`whsec_...\`, Standard Webhooks) once: store it. ` +
          "Notifications are POSTed to `target` with the headers webhook-id, webhook-timestamp and webhook-signature " +
          "(v1, HMAC-SHA256 over `id.timestamp.body`). event_occurrence.upcoming is sent once per active occurrence, " +
          "at the first 5-minute run that finds it starting within the next 24 hours (never once it has started or was canceled). " +
          "403 when the business does not have the webhooks feature; " +
          "422 for a target that is not http(s) or resolves to a private or loopback address.",
        [AccessRefusals.ownerRequired, R.webhooksFeatureDisabled, ...targetRules, R.fieldTooLong, R.webhookLimitReached]
      )
    )
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v3/webhooks", { success: jsonApi(WebhookListDocument), error: errors }).annotateMerge(
      docs("List the business's webhooks", "Every subscription of the business, whoever of its owners made it, oldest first.", [
        AccessRefusals.ownerRequired
      ])
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v3/webhooks/:id", {
      params: { id: IdFromString },
      success: jsonApi(WebhookDocument),
      error: errors
    }).annotateMerge(docs("Get a webhook", undefined, owned))
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/v3/webhooks/:id", {
      params: { id: IdFromString },
      payload: payloadOf(WebhookUpdateDocument),
      success: jsonApi(WebhookDocument),
      error: errors
    }).annotateMerge(
      docs(
        "Update a webhook",
        "Change its target, name or description, or set `enabled`: true re-enables a subscription disabled by a 410 answer.",
        [...owned, R.webhookIdMismatch, ...targetRules, R.fieldTooLong]
      )
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v3/webhooks/:id", { params: { id: IdFromString }, error: errors }).annotateMerge(
      docs("Delete a webhook", "204; its delivery log goes with it and no further notifications are sent.", owned)
    )
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/api/v3/webhooks/:id/rotate_secret", {
      params: { id: IdFromString },
      success: jsonApi(WebhookDocument),
      error: errors
    }).annotateMerge(
      docs(
        "Rotate the signing secret",
        "Returns the webhook with its new secret (shown once). For 24 hours each notification carries two signatures, " +
          "one per secret, so a receiver can switch without missing any.",
        owned
      )
    )
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/api/v3/webhooks/:id/deliveries", {
      params: { id: IdFromString },
      query: {
        "page[size]": Schema.optional(positiveIntParam("Deliveries per page, at most 100 (default 25)")),
        "page[before]": Schema.optional(positiveIntParam("Only deliveries older than this delivery id (the `next` link sets it)")),
        "filter[status]": Schema.optional(Schema.Literals(DELIVERY_STATUSES).annotate({ description: "Only deliveries in this status" }))
      },
      success: jsonApi(DeliveryListDocument),
      error: errors
    }).annotateMerge(
      docs(
        "The delivery log",
        "Newest first: each delivery with its attempts (time, status code, latency, error) and the time of the next attempt. " +
          "Events are kept 30 days (longer while a delivery of theirs is pending), then go with their deliveries.",
        owned
      )
    )
  )
  .add(
    HttpApiEndpoint.post("replay", "/api/v3/webhooks/:id/events/:event_id/replay", {
      params: {
        id: IdFromString,
        event_id: Schema.String.annotate({ description: "The event's id (msg_...), as in the delivery log and the webhook-id header" })
      },
      success: jsonApi(DeliveryDocument).pipe(HttpApiSchema.status(202)),
      error: errors
    }).annotateMerge(
      docs(
        "Replay an event",
        "Sends the event to this webhook again as a new delivery (202), with the same webhook-id as the original. " +
          "Only events this webhook was sent can be replayed, and only while they are kept (30 days).",
        [...owned, R.webhookDisabled, R.webhookEventNotFound]
      )
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Webhooks (JSON:API 1.0, owners)"))
