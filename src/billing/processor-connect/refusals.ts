import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the payment processor's connected checkout. */
export const ProcessorConnectRefusals = {
  personNotFound: refusal(NotFound, "person_not_found"),
  processorPaymentMethodNotFound: refusal(NotFound, "processor_payment_method_not_found"),
  processorPaymentMethodUnconfirmed: refusal(Unprocessable, "processor_payment_method_unconfirmed"),
  processorPersonRequired: refusal(Unprocessable, "processor_person_required")
}
