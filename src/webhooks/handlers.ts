import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../shared/http-api.ts"
import { WebhooksApi } from "./api.ts"
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from "./service.ts"
import { listWebhookDeliveries, replayWebhookEvent } from "./deliveries.ts"

export const WebhooksLive = HttpApiBuilder.group(apiOf(WebhooksApi), "webhooks", (handlers) =>
  handlers
    .handle("create", ({ payload }) => createWebhook(payload))
    .handle("list", () => listWebhooks())
    .handle("get", ({ params }) => getWebhook(params.id))
    .handle("update", ({ params, payload }) => updateWebhook(params.id, payload))
    .handle("delete", ({ params }) => deleteWebhook(params.id))
    .handle("rotateSecret", ({ params }) => rotateWebhookSecret(params.id))
    .handle("deliveries", ({ params, query }) => listWebhookDeliveries(params.id, query))
    .handle("replay", ({ params }) => replayWebhookEvent(params.id, params.event_id)))
