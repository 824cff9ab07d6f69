import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess, FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, Forbidden, NotFound, Unauthorized, Unprocessable } from "../../shared/errors.ts"
import { IdempotencyHeaders } from "../../shared/idempotency.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { FormOfPaymentRefusals } from "../forms-of-payment/refusals.ts"
import { PaymentBody, PaymentMethods, Payments, RefundInput, Refunds, VoidInput } from "./payments-model.ts"
import { InvoiceRefusals as R } from "./refusals.ts"

const PAY_RULES =
  "`amount_cents` greater than zero and at most the outstanding amount; `form_of_payment_id` (creditcard, ach) defaults to the " +
  "payer's autobill form. Cards are charged through the gateway (a decline is kept as a failed payment and answered 422); credit " +
  "spends the payer's account credit; the other methods settle at once. When nothing is outstanding the invoice closes. The fields " +
  "may come wrapped (`payment`) or at the top level. `Idempotency-Key`: a repeat with the same key and body answers the first payment."
/** Who may call; limited staff move no money, demoted staff have no staff mode at all. */
const STANDARD = "Standard staff, managers and owners (403 for limited staff). "
const MANAGER = "Managers and owners only (403 for standard and limited staff). "
/** A card move that reaches the gateway: declined (kept as a failed record) or the gateway down. */
const GATEWAY = [R.paymentDeclined, FormOfPaymentRefusals.paymentGatewayUnavailable]
const PAY_REFUSALS = [
  R.invoiceNotFound,
  R.invoiceNotPayable,
  R.fieldRequired,
  R.fieldMustBeOneOf,
  R.fieldMustBePositiveInteger,
  R.fieldIdNotFound,
  R.paymentAmountTooLarge,
  R.accountCreditInsufficient,
  ...GATEWAY
]
/** Deleting undoes the payment as a void does (voids.ts `undoPayment`). */
const DELETE_REFUSALS = [R.invoiceNotFound, R.paymentNotFound, R.paymentNotDeletable, R.paymentNotVoidable, ...GATEWAY]
const REFUND_REFUSALS = [
  R.invoiceNotFound,
  R.paymentNotFound,
  R.paymentNotRefundable,
  R.fieldRequired,
  R.fieldMustBePositiveInteger,
  R.fieldMustBeOneOf,
  R.fieldIsInvalid,
  R.fieldIdNotFound,
  R.refundAmountTooLarge,
  ...GATEWAY
]
const VOID_REFUSALS = [R.paymentNotFound, R.paymentNotVoidable, R.fieldIdNotFound, ...GATEWAY]
const VOID_REFUND_REFUSALS = [R.refundNotFound, R.refundNotSettled, R.accountCreditInsufficient, ...GATEWAY]
const invoice = { invoice_id: IdFromString }
const payment = { invoice_id: IdFromString, payment_id: IdFromString }

export const PaymentsFrontApi = HttpApiGroup.make("paymentsFront")
  .add(
    HttpApiEndpoint.get("methods", "/api/v2/front/invoices/:invoice_id/payment_methods", {
      params: invoice,
      success: PaymentMethods,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Payment methods", "The payer's cards and account credit (with its balance).", [R.invoiceNotFound]))
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/front/invoices/:invoice_id/payments", {
      params: invoice,
      headers: IdempotencyHeaders,
      payload: PaymentBody,
      success: Payments.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Pay an invoice", "`payment_method` creditcard or credit. " + PAY_RULES, PAY_REFUSALS))
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/front/invoices/:invoice_id/payments/:payment_id", {
      params: payment,
      success: Payments,
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Delete a payment", "Only while the invoice is in checkout (cart, cart_hidden): the money goes back and the payment stays listed as voided.", DELETE_REFUSALS))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Payments (client mode)"))

export const PaymentsDeskApi = HttpApiGroup.make("paymentsDesk")
  .add(
    HttpApiEndpoint.get("methods", "/api/v2/desk/invoices/:invoice_id/payment_methods", {
      params: invoice,
      success: PaymentMethods,
      error: NotFound
    }).annotateMerge(docs("Payment methods", "The payer's forms of payment, account credit (with its balance) and the accepted types.", [R.invoiceNotFound]))
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/desk/invoices/:invoice_id/payments", {
      params: invoice,
      headers: IdempotencyHeaders,
      payload: PaymentBody,
      success: Payments.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Pay an invoice", STANDARD + "`payment_method` a key of the payment methods. " + PAY_RULES, PAY_REFUSALS))
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/desk/invoices/:invoice_id/payments/:payment_id", {
      params: payment,
      success: Payments,
      error: [Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Delete a payment", MANAGER + "As client mode: only in checkout (the money goes back, as with a void).", DELETE_REFUSALS))
  )
  .add(
    HttpApiEndpoint.post("refund", "/api/v2/desk/invoices/:invoice_id/payments/:payment_id/refunds", {
      params: payment,
      headers: IdempotencyHeaders,
      payload: Schema.Struct({ refund: RefundInput }),
      success: Refunds.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Refund a payment",
        MANAGER + "`amount_cents` greater than zero and at most `maximum_refund_cents`; `payment_type_id` 2 (cash), 5 (account credit) or the " +
          "payment's own (default: a card refund goes back to the card); `invoice_item_ids_to_cancel` ends the plans those items created; " +
          "`receipt_email` is required with `send_receipt`.",
        REFUND_REFUSALS
      )
    )
  )
  .add(
    HttpApiEndpoint.post("voidPayment", "/api/v2/desk/payments/:payment_id/voids", {
      params: { payment_id: IdFromString },
      headers: IdempotencyHeaders,
      payload: Schema.Struct({ void: Schema.optional(VoidInput) }),
      success: Payments.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Void a payment", MANAGER + "A settled payment without refunds: a card charge is voided at the gateway, credit returns to the ledger.", VOID_REFUSALS))
  )
  .add(
    HttpApiEndpoint.post("voidRefund", "/api/v2/desk/refunds/:refund_id/voids", {
      params: { refund_id: IdFromString },
      headers: IdempotencyHeaders,
      success: Refunds.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Void a refund", MANAGER + "Cash and account-credit refunds (a card refund cannot be taken back).", VOID_REFUND_REFUSALS))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Payments (staff mode)"))
