import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess, FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, Forbidden, NotFound, Unauthorized, Unprocessable } from "../../shared/errors.ts"
import { IntInput } from "../../shared/schemas.ts"
import { FormOfPaymentRefusals } from "../forms-of-payment/refusals.ts"
import { ProcessorConnectRefusals as R } from "./refusals.ts"

/**
 * Payment-processor connect (spec: the path segment `processor_connect` stands for the
 * processor): a setup intent's client secret for the processor's browser library, the
 * processor's data for a payment method, and saving it as a form of payment.
 */
export const SetupIntents = Schema.Struct({
  setup_intents: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      client_secret: Schema.String.annotate({ description: "For the processor's browser or mobile library" }),
      confirm_url: Schema.String.annotate({ description: "The sandbox processor's page confirming the intent with a test card" })
    })
  )
})

export const ProcessorPaymentMethod = Schema.Struct({
  id: Schema.String.annotate({ description: "The payment method id (the confirmed setup intent's)" }),
  type: Schema.Literal("card"),
  card: Schema.Struct({ brand: Schema.String, last4: Schema.String, exp_month: Schema.Int, exp_year: Schema.Int }),
  billing_details: Schema.Struct({ name: Schema.String }),
  form_of_payment_id: Schema.optional(Schema.Int)
}).annotate({ identifier: "ProcessorPaymentMethod" })
export type ProcessorPaymentMethod = typeof ProcessorPaymentMethod.Type

export const PaymentMethods = Schema.Struct({ payment_methods: Schema.Array(ProcessorPaymentMethod) })

const Query = Schema.Struct({ payment_method_id: Schema.String.annotate({ description: "Required: the payment method's id" }) })
export const SaveInput = Schema.Struct({
  payment_method_id: Schema.String,
  person_id: Schema.optional(IntInput.annotate({ description: "Staff mode: required, whose card it is. Client mode: oneself (the default)" }))
})
export type SaveInput = typeof SaveInput.Type

/** Who may call in staff mode: saving a card for a person needs standard staff or higher. */
const STANDARD = "Standard staff, managers and owners (403 for limited staff). "

const GATEWAY = FormOfPaymentRefusals.paymentGatewayUnavailable
const CARD_REFUSALS = [R.processorPaymentMethodNotFound, R.processorPaymentMethodUnconfirmed, GATEWAY]
/** Client mode saves for oneself only; staff mode names a live person of the business. */
const SAVE_REFUSALS = { front: [R.personNotFound, ...CARD_REFUSALS], desk: [R.processorPersonRequired, R.personNotFound, ...CARD_REFUSALS] }

const group = <const Name extends string, const Mode extends "front" | "desk">(name: Name, mode: Mode) => {
  const who = mode === "desk" ? STANDARD : ""
  const refused = mode === "desk" ? [Forbidden] : []
  return HttpApiGroup.make(name)
    .add(
      HttpApiEndpoint.get("new", `/api/v2/${mode}/processor_connect/payment_methods/new`, {
        success: SetupIntents,
        error: [...refused, NotFound, Unauthorized, Unprocessable]
      }).annotateMerge(docs("A new setup intent", who + "Its client secret builds the processor's payment method form.", [GATEWAY]))
    )
    .add(
      HttpApiEndpoint.get("get", `/api/v2/${mode}/processor_connect/payment_methods`, {
        query: Query,
        success: PaymentMethods,
        error: [BadRequest, NotFound, Unauthorized, Unprocessable]
      }).annotateMerge(docs("The processor's data for a payment method", "`payment_method_id` is required; 422 while unconfirmed.", CARD_REFUSALS))
    )
    .add(
      HttpApiEndpoint.post("save", `/api/v2/${mode}/processor_connect/payment_methods`, {
        payload: Schema.Struct({ payment_method: SaveInput }),
        success: PaymentMethods.pipe(HttpApiSchema.status(201)),
        error: [BadRequest, ...refused, NotFound, Unauthorized, Unprocessable]
      }).annotateMerge(
        docs(
          "Save a confirmed payment method as a form of payment",
          who +
            "Answers the processor's data plus `form_of_payment_id`; the person's first form becomes autobill. Saving it again answers the same form.", SAVE_REFUSALS[mode]
        )
      )
    )
}

export const ProcessorConnectFrontApi = group("processorConnectFront", "front")
  .middleware(FrontAccess)
  .annotateMerge(docs("Payment-processor connect (client mode)"))
export const ProcessorConnectDeskApi = group("processorConnectDesk", "desk")
  .middleware(DeskAccess)
  .annotateMerge(docs("Payment-processor connect (staff mode)"))
