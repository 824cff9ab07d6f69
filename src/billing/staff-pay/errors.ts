import { Schema } from "effect"

/**
 * Why a pay could not be added or reviewed (the operator CLI shows `message` on one line).
 * Nothing was written.
 */
export class PayProblem extends Schema.TaggedError<PayProblem>()(
  "PayProblem",
  {
    reason: Schema.Literals([
      "pay_not_found",
      "already_reviewed",
      "staff_member_not_found",
      "invoice_not_found",
      "invoice_not_closed",
      "no_tip_recipient",
      "tip_already_recorded",
      "invalid_amount"
    ]),
    message: Schema.String
  },
  { httpApiStatus: 422, description: "The pay could not be added or reviewed; nothing was written" }
) {}
