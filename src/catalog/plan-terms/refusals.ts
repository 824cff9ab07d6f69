import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the plan terms endpoints. */
export const PlanTermsRefusals = {
  planTermsNone: refusal(NotFound, "plan_terms_none"),
  planTermsNotFound: refusal(NotFound, "plan_terms_not_found"),
  planTermsCompletionInvalid: refusal(Unprocessable, "plan_terms_completion_invalid"),
  planTermsDeclined: refusal(Unprocessable, "plan_terms_declined"),
  planTermsNotSigned: refusal(Unprocessable, "plan_terms_not_signed"),
  planTermsSigningUnavailable: refusal(Unprocessable, "plan_terms_signing_unavailable")
}
