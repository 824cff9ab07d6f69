import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unauthorized, Unprocessable } from "../../shared/errors.ts"
import { PageFields } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { PersonTargetParam } from "../../shared/schemas.ts"
import { VisitCreateFrontInput, VisitDetail, VisitListQuery, VisitOne } from "./model.ts"
import { visitEndpointRefusals as REFUSALS } from "./refusals.ts"

const visits = Schema.Struct({ visits: Schema.Array(VisitOne) })

export const VisitsFrontApi = HttpApiGroup.make("visitsFront")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/visits/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ visits: Schema.Array(VisitOne) }),
      error: [NotFound, Unauthorized]
    }).annotateMerge(
      docs("Get a visit", "A visit of the token's person or one of their dependents; any other visit is not found. Needs an access token.", REFUSALS.get)
    )
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/people/:person_id/visits", {
      params: { person_id: PersonTargetParam },
      query: VisitListQuery,
      success: Schema.Struct({ visits: Schema.Array(VisitDetail), ...PageFields }),
      error: [BadRequest, NotFound, Unauthorized]
    }).annotateMerge(
      docs(
        "List a person's visits",
        "The token's person (`me` or their id) or one of their dependents. Ordered by the event occurrence's start, then id; " +
          "20 per page by default. `from` and `to` bound the occurrence's start (both inclusive) and come together: one " +
          "without the other is a 400, as is `to` before `from`.",
        REFUSALS.personList
      )
    )
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/front/visits", {
      payload: Schema.Struct({ visit: VisitCreateFrontInput }),
      success: visits.pipe(HttpApiSchema.status(201)),
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(
      docs(
        "Enroll in an event occurrence",
        "`person_id` defaults to the token's person and may name one of their dependents (anyone else: 404). The occurrence " +
          "must be one the client can see (404). Every client-mode enrollment restriction applies (already enrolled, full, " +
          "in the past, inside the blackout window, too far in advance, online booking off, members/clients not allowed, " +
          "no plan, client purchase disabled, cancelled, deleted): a 422 lists each description. The visit is `registered` " +
          "and the client is always mailed a confirmation (a dependent without e-mail: their provider).",
        REFUSALS.frontCreate
      )
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/front/visits/:id", {
      params: { id: IdFromString },
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(
      docs(
        "Cancel a visit",
        "Deletes a reserved or registered visit of the token's person or a dependent (204) until its occurrence starts; " +
          "after that, or in another state, a 422. A place held by a booking is released through the booking instead (422). " +
          "The place frees and the client is mailed.",
        REFUSALS.frontDelete
      )
    )
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Visits (client mode)"))
