import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess, FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unauthorized } from "../../shared/errors.ts"
import { PageFields } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { PeopleRefusals } from "../../identity/people/refusals.ts"
import { WaiverListQuery, WaiverWire } from "./model.ts"

const success = Schema.Struct({ waivers: Schema.Array(WaiverWire), ...PageFields })
const description = "By id; paginated, 100 per page by default (a person has a handful)."

export const WaiversFrontApi = HttpApiGroup.make("waiversFront")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/people/:person_id/waivers", {
      params: { person_id: IdFromString },
      query: WaiverListQuery,
      success,
      error: [BadRequest, NotFound, Unauthorized]
    }).annotateMerge(docs("List a person's waivers", `The token's person or a dependent (anyone else is not found). ${description}`, [
      PeopleRefusals.personNotFound,
      PeopleRefusals.personMeNotFound
    ]))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Waivers (client mode)"))

export const WaiversDeskApi = HttpApiGroup.make("waiversDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/people/:person_id/waivers", {
      params: { person_id: IdFromString },
      query: WaiverListQuery,
      success,
      error: [BadRequest, NotFound]
    }).annotateMerge(docs("List a person's waivers", description, [PeopleRefusals.personNotFound]))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Waivers (staff mode)"))
