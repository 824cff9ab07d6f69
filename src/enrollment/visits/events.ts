import { Effect } from "effect"
import { emitWebhookEvents } from "../../webhooks/emit.ts"
import { shownVisits } from "./shown.ts"

/**
 * visit.created and visit.updated, one event per visit, in the caller's transaction. The body is
 * the Core API's visit response, as `GET visits/:id` gives it (`{"visits": [{...}]}`). A lease's reserved hold is not a visit
 * to webhook consumers: its visits are announced as created when the booking completes.
 */
export const emitVisitEvents = Effect.fn("Visits.emitEvents")(function* (
  businessId: number,
  topic: "visit.created" | "visit.updated",
  visitIds: ReadonlyArray<number>
) {
  yield* emitWebhookEvents(businessId, topic, visitIds.map((id) => shownVisits(businessId, [id])))
})
