import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { NotFound, Unauthorized } from "../../shared/errors.ts"
import { BooleanInput, IdFromString } from "../../shared/schemas.ts"
import { PersonFront } from "./model.ts"
import { PeopleRefusals } from "./refusals.ts"

const query = {
  with_dependents: Schema.optional(BooleanInput.annotate({ description: "Also return the person's dependents (for `me` and the token's own id)" }))
}
const success = Schema.Struct({ people: Schema.Array(PersonFront) })

export const PeopleFrontApi = HttpApiGroup.make("peopleFront")
  .add(
    HttpApiEndpoint.get("me", "/api/v2/front/people/me", { query, success, error: [NotFound, Unauthorized] }).annotateMerge(
      docs("The token's person", "Needs an access token (a `client_id` alone is a 401). With `with_dependents=true` the person's dependents follow.", [
        PeopleRefusals.personMeNotFound
      ])
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/people/:id", {
      params: { id: IdFromString },
      query,
      success,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get a person", "The token's person or one of their dependents; anyone else is not found.", [PeopleRefusals.personNotFound]))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("People (client mode)"))
