import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { PunchCreateInput, Punches } from "./model.ts"
import { PunchRefusals } from "./refusals.ts"

const createDescription =
  "`visit_id` is required; `plan_id` names the person plan to spend (a pack's id is its plan id). The plan must be held " +
  "by the visit's person and, on the visit's date (in the business's calendar), be current, not on hold and have a visit " +
  "left (422 naming each problem); staff are not bound by the plan's services, location or staff member. Without " +
  "`plan_id` the person's suitable plan that ends first is chosen (then the fewest visits left, then the oldest); none: " +
  "422. A visit has at most one punch: naming the plan that already paid it answers that punch; naming another plan " +
  "replaces a punch made automatically (auto-pay) and is a 422 when staff made it; without `plan_id` a paid visit is a " +
  "422. An unknown visit or plan is a 404. The visit becomes paid (`punch_id`, `paid_for_by`)."

const CREATE_REFUSALS = [
  PunchRefusals.visitNotFound,
  PunchRefusals.punchPlanNotFound,
  PunchRefusals.punchVisitWithoutPerson,
  PunchRefusals.punchVisitAlreadyPaid,
  PunchRefusals.punchNoSuitablePlan,
  PunchRefusals.punchPlanNotHeld,
  PunchRefusals.punchPlanNotCurrent,
  PunchRefusals.punchPlanOnHold,
  PunchRefusals.punchPlanUsedUp
]

export const PunchesDeskApi = HttpApiGroup.make("punchesDesk")
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/punches/:id", {
      params: { id: IdFromString },
      success: Punches,
      error: NotFound
    }).annotateMerge(docs("Get a punch", undefined, [PunchRefusals.punchNotFound]))
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/desk/punches", {
      payload: Schema.Struct({ punch: PunchCreateInput }),
      success: Punches.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unprocessable]
    }).annotateMerge(docs("Pay for a visit with a plan", createDescription, CREATE_REFUSALS))
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/desk/punches/:id", {
      params: { id: IdFromString },
      error: NotFound
    }).annotateMerge(docs("Delete a punch", "204. The visit becomes unpaid and its plan gets the visit back.", [PunchRefusals.punchNotFound]))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Punches (staff mode)"))
