import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { EventListQuery, EventWire } from "./model.ts"
import { eventEndpointRefusals as REFUSALS } from "./refusals.ts"

export const EventsDeskApi = HttpApiGroup.make("eventsDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/events", {
      query: EventListQuery,
      success: Schema.Struct({ events: Schema.Array(EventWire) }),
      error: BadRequest
    }).annotateMerge(
      docs("List events", "Events whose sessions overlap `from`..`to` (at most 120 days); with neither, all events.", REFUSALS.list)
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/events/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ events: Schema.Array(EventWire) }),
      error: NotFound
    }).annotateMerge(docs("Get an event", undefined, REFUSALS.get))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Events (staff mode)"))
