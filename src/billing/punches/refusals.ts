import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of punches: the visit, the plan it uses, and the rules a plan must meet. */
export const PunchRefusals = {
  punchNoSuitablePlan: refusal(Unprocessable, "punch_no_suitable_plan"),
  punchNotFound: refusal(NotFound, "punch_not_found"),
  punchPlanNotCurrent: refusal(Unprocessable, "punch_plan_not_current"),
  punchPlanNotFound: refusal(NotFound, "punch_plan_not_found"),
  punchPlanNotHeld: refusal(Unprocessable, "punch_plan_not_held"),
  punchPlanOnHold: refusal(Unprocessable, "punch_plan_on_hold"),
  punchPlanUsedUp: refusal(Unprocessable, "punch_plan_used_up"),
  punchVisitAlreadyPaid: refusal(Unprocessable, "punch_visit_already_paid"),
  punchVisitWithoutPerson: refusal(Unprocessable, "punch_visit_without_person"),
  visitNotFound: refusal(NotFound, "visit_not_found")
}
