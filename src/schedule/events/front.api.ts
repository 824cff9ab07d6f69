import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { EventListQuery, EventWire } from "./model.ts"
import { eventEndpointRefusals as REFUSALS } from "./refusals.ts"

export const EventsFrontApi = HttpApiGroup.make("eventsFront")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/events", {
      query: EventListQuery,
      success: Schema.Struct({ events: Schema.Array(EventWire) }),
      error: BadRequest
    }).annotateMerge(
      docs(
        "List events",
        "Publicly viewable events: no token needed (`client_id`). Events whose sessions overlap `from`..`to` (at most 120 days); " +
          "with neither, all events. Staff hidden in client mode are left out of `staff_members`.",
        REFUSALS.list
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/events/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ events: Schema.Array(EventWire) }),
      error: NotFound
    }).annotateMerge(docs("Get an event", undefined, REFUSALS.get))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Events (client mode)"))
