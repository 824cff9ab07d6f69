import { NotFound, Unprocessable } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the forms of payment and their card vaulting, and the gateway outage every money move shares. */
export const FormOfPaymentRefusals = {
  formOfPaymentAutobillRequired: refusal(Unprocessable, "form_of_payment_autobill_required"),
  formOfPaymentCreditcardNotAccepted: refusal(Unprocessable, "form_of_payment_creditcard_not_accepted"),
  formOfPaymentIdMismatch: refusal(Unprocessable, "form_of_payment_id_mismatch"),
  formOfPaymentNotFound: refusal(NotFound, "form_of_payment_not_found"),
  formOfPaymentTypeBlank: refusal(Unprocessable, "form_of_payment_type_blank"),
  formOfPaymentTypeInvalid: refusal(Unprocessable, "form_of_payment_type_invalid"),
  paymentGatewayUnavailable: refusal(Unprocessable, "payment_gateway_unavailable"),
  personNotFound: refusal(NotFound, "person_not_found"),
  vaultingCardExpired: refusal(Unprocessable, "vaulting_card_expired"),
  vaultingCardNotAccepted: refusal(Unprocessable, "vaulting_card_not_accepted"),
  vaultingDeclined: refusal(Unprocessable, "vaulting_declined"),
  vaultingExpired: refusal(Unprocessable, "vaulting_expired"),
  vaultingFieldBlank: refusal(Unprocessable, "vaulting_field_blank"),
  vaultingFieldInvalid: refusal(Unprocessable, "vaulting_field_invalid"),
  vaultingNotFound: refusal(NotFound, "vaulting_not_found"),
  vaultingPending: refusal(Unprocessable, "vaulting_pending"),
  vaultingUsed: refusal(Unprocessable, "vaulting_used")
}
