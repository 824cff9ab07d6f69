import { Schema } from "effect"
import { BooleanInput, Timestamp } from "../shared/schemas.ts"

/**
 * Webhooks: subscriptions (JSON:API 1.0 resources of type `webhooks`), the events domain
 * changes emit, and the delivery log. Topics are `<resource>.<event>` (compatibility notes).
 */

/** Every topic, in the order the public API added them. */
export const WEBHOOK_TOPICS = [
  "person.created",
  "person.updated",
  "person.deleted",
  "person.undeleted",
  "visit.created",
  "visit.updated",
  "punch.created",
  "plan.created",
  "plan.updated",
  "person_plan.created",
  "plan.ended",
  "event_occurrence.upcoming"
] as const
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number]
export const WebhookTopic = Schema.Literals(WEBHOOK_TOPICS).annotate({ description: "What the subscription is notified of" })

export const JSON_API = "application/vnd.api+json"

// ---------------------------------------------------------------------------------------------
// Requests

const NullableText = (description: string) =>
  Schema.optionalKey(Schema.NullOr(Schema.String).annotate({ messageKey: "field_must_be_string", description }))

export const WebhookCreateAttributes = Schema.Struct({
  target: Schema.String.annotate({
    description: "The http(s) URL notifications are POSTed to (at most 2048 characters; private and loopback addresses are refused)"
  }),
  topic: WebhookTopic,
  name: NullableText("A label for the owner (at most 200 characters)"),
  description: NullableText("A note for the owner (at most 1000 characters)")
})

export const WebhookCreateDocument = Schema.Struct({
  data: Schema.Struct({
    type: Schema.Literal("webhooks"),
    attributes: WebhookCreateAttributes
  })
}).annotate({ identifier: "WebhookCreateDocument" })
export type WebhookCreateDocument = typeof WebhookCreateDocument.Type

export const WebhookUpdateAttributes = Schema.Struct({
  target: Schema.optionalKey(Schema.String.annotate({ description: "A new target URL" })),
  name: NullableText("A label for the owner"),
  description: NullableText("A note for the owner"),
  enabled: Schema.optionalKey(
    BooleanInput.annotate({ description: "true re-enables a subscription disabled by a 410 answer (or by an owner); false pauses it" })
  )
})
export type WebhookUpdateAttributes = typeof WebhookUpdateAttributes.Type

export const WebhookUpdateDocument = Schema.Struct({
  data: Schema.Struct({
    type: Schema.Literal("webhooks"),
    id: Schema.optionalKey(Schema.String.annotate({ description: "The webhook's id; when given it must match the path" })),
    attributes: WebhookUpdateAttributes
  })
}).annotate({ identifier: "WebhookUpdateDocument" })
export type WebhookUpdateDocument = typeof WebhookUpdateDocument.Type

// ---------------------------------------------------------------------------------------------
// Responses

export const WebhookAttributes = Schema.Struct({
  account_id: Schema.Int.annotate({ description: "The account of the owner who made the subscription" }),
  business_id: Schema.Int,
  topic: WebhookTopic,
  target: Schema.String,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  disabled_at: Schema.NullOr(Timestamp),
  disabled_reason: Schema.NullOr(
    Schema.Literals(["gone", "manual"]).annotate({
      description: "gone: the target answered 410 Gone; manual: an owner paused it"
    })
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
  secret: Schema.optionalKey(
    Schema.String.annotate({
      description:
        "The Standard Webhooks signing secret (whsec_...). Only in the answers of create and rotate_secret: store it then."
    })
  )
})

export const WebhookResource = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("webhooks"),
  links: Schema.Struct({ self: Schema.String }),
  attributes: WebhookAttributes
}).annotate({ identifier: "Webhook" })
export type WebhookResource = typeof WebhookResource.Type

export const WebhookDocument = Schema.Struct({ data: WebhookResource })
export const WebhookListDocument = Schema.Struct({
  data: Schema.Array(WebhookResource),
  links: Schema.Struct({ self: Schema.String }),
  meta: Schema.Struct({ total_count: Schema.Int })
})

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "cancelled"] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export const DeliveryAttempt = Schema.Struct({
  attempt: Schema.Int,
  started_at: Timestamp,
  status_code: Schema.NullOr(Schema.Int).annotate({ description: "The receiver's HTTP status; null when there was no answer" }),
  latency_ms: Schema.Int,
  error: Schema.NullOr(Schema.String).annotate({ description: "Why the attempt failed without an answer (timeout, refused connection, refused target)" }),
  response_body: Schema.NullOr(Schema.String).annotate({ description: "The first kilobyte of the receiver's answer" })
})

export const DeliveryResource = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("webhook_deliveries"),
  attributes: Schema.Struct({
    webhook_id: Schema.Int,
    event_id: Schema.String.annotate({ description: "The event (msg_...): the webhook-id header of every attempt" }),
    topic: WebhookTopic,
    kind: Schema.Literals(["event", "replay"]),
    status: Schema.Literals(DELIVERY_STATUSES).annotate({
      description: "pending (more attempts to come), succeeded (a 2xx answer), failed (410, or no 2xx within about three days), cancelled (the subscription was disabled)"
    }),
    attempt_count: Schema.Int,
    last_status_code: Schema.NullOr(Schema.Int),
    next_attempt_at: Schema.NullOr(Timestamp).annotate({ description: "When the next attempt is due; null when none is" }),
    created_at: Timestamp,
    completed_at: Schema.NullOr(Timestamp),
    attempts: Schema.Array(DeliveryAttempt)
  })
}).annotate({ identifier: "WebhookDelivery" })
export type DeliveryResource = typeof DeliveryResource.Type

export const DeliveryDocument = Schema.Struct({ data: DeliveryResource })
export const DeliveryListDocument = Schema.Struct({
  data: Schema.Array(DeliveryResource),
  links: Schema.Struct({
    self: Schema.String,
    next: Schema.optionalKey(Schema.String.annotate({ description: "The next (older) page; absent on the last" }))
  })
})

// ---------------------------------------------------------------------------------------------
// Rows

export const SubscriptionRow = Schema.Struct({
  business_id: Schema.Number,
  id: Schema.Number,
  created_by_staff_member_id: Schema.Number,
  created_by_account_id: Schema.Number,
  topic: WebhookTopic,
  target: Schema.String,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  disabled_at: Schema.NullOr(Schema.Date),
  disabled_reason: Schema.NullOr(Schema.Literals(["gone", "manual"])),
  created_at: Schema.Date,
  updated_at: Schema.Date
})
export type SubscriptionRow = typeof SubscriptionRow.Type

export const DeliveryRow = Schema.Struct({
  id: Schema.Number,
  subscription_id: Schema.Number,
  message_id: Schema.String,
  topic: WebhookTopic,
  kind: Schema.Literals(["event", "replay"]),
  status: Schema.Literals(DELIVERY_STATUSES),
  attempt_count: Schema.Number,
  last_status_code: Schema.NullOr(Schema.Number),
  next_attempt_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  completed_at: Schema.NullOr(Schema.Date)
})
export type DeliveryRow = typeof DeliveryRow.Type

export const AttemptRow = Schema.Struct({
  delivery_id: Schema.Number,
  attempt: Schema.Number,
  started_at: Schema.Date,
  status_code: Schema.NullOr(Schema.Number),
  latency_ms: Schema.Number,
  error: Schema.NullOr(Schema.String),
  response_body: Schema.NullOr(Schema.String)
})
export type AttemptRow = typeof AttemptRow.Type

/** What one delivery attempt needs: the claimed attempt number, the target and keys, the event's body. */
export const DeliveryWorkRow = Schema.Struct({
  business_id: Schema.Number,
  id: Schema.Number,
  subscription_id: Schema.Number,
  attempt_count: Schema.Number,
  message_id: Schema.String,
  body: Schema.String,
  target: Schema.String,
  secret_encrypted: Schema.Uint8Array,
  previous_secret_encrypted: Schema.NullOr(Schema.Uint8Array),
  previous_secret_expires_at: Schema.NullOr(Schema.Date)
})
export type DeliveryWorkRow = typeof DeliveryWorkRow.Type
