import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unauthorized } from "../../shared/errors.ts"
import { PlanRefusals } from "./refusals.ts"
import { PersonTargetParam } from "../../shared/schemas.ts"
import { PersonPlanListQuery, PlanPage } from "./model.ts"

export const PlansFrontApi = HttpApiGroup.make("plansFront")
  .add(
    HttpApiEndpoint.get("personList", "/api/v2/front/people/:person_id/plans", {
      params: { person_id: PersonTargetParam },
      query: PersonPlanListQuery,
      success: PlanPage,
      error: [BadRequest, NotFound, Unauthorized]
    }).annotateMerge(
      docs(
        "List a person's plans",
        "The token's person (`me`) or a dependent (anyone else is not found). Paginated (20 per page), newest start first. " +
          "`filter`: active, active_with_upcoming, current, inactive, upcoming, usable (today, business-local); `include_holds` adds holds.",
        [PlanRefusals.personNotFound]
      )
    )
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Plans (client mode)"))
