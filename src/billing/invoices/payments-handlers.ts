import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { requireManagerOrHigher, requireStandardOrHigher } from "../../access/policies.ts"
import { staffCaller } from "../../access/caller.ts"
import { clientCaller } from "../../catalog/services/callers.ts"
import { apiOf } from "../../shared/http-api.ts"
import { PaymentsDeskApi, PaymentsFrontApi } from "./payments.api.ts"
import { createPayment, deletePayment, paymentFields, paymentMethods } from "./paying.ts"
import { createRefund, voidRefund } from "./refunds.ts"
import { voidPayment } from "./voids.ts"

export const PaymentsFrontLive = HttpApiBuilder.group(apiOf(PaymentsFrontApi), "paymentsFront", (handlers) =>
  handlers
    .handle("methods", ({ params }) => Effect.flatMap(clientCaller, (caller) => paymentMethods(caller, params.invoice_id)))
    .handle("create", ({ params, headers, payload }) =>
      Effect.flatMap(clientCaller, (caller) => createPayment(caller, params.invoice_id, paymentFields(payload), headers["idempotency-key"])))
    .handle("delete", ({ params }) => Effect.flatMap(clientCaller, (caller) => deletePayment(caller, params.invoice_id, params.payment_id))))

/** Who may move money: standard staff take payments; refunds, voids and deletions are a manager's. */
const standardCaller = Effect.andThen(requireStandardOrHigher, staffCaller)
const managerCaller = Effect.andThen(requireManagerOrHigher, staffCaller)

export const PaymentsDeskLive = HttpApiBuilder.group(apiOf(PaymentsDeskApi), "paymentsDesk", (handlers) =>
  handlers
    .handle("methods", ({ params }) => Effect.flatMap(staffCaller, (caller) => paymentMethods(caller, params.invoice_id)))
    .handle("create", ({ params, headers, payload }) =>
      Effect.flatMap(standardCaller, (caller) => createPayment(caller, params.invoice_id, paymentFields(payload), headers["idempotency-key"])))
    .handle("delete", ({ params }) => Effect.flatMap(managerCaller, (caller) => deletePayment(caller, params.invoice_id, params.payment_id)))
    .handle("refund", ({ params, headers, payload }) =>
      Effect.flatMap(managerCaller, (caller) => createRefund(caller, params.invoice_id, params.payment_id, payload.refund, headers["idempotency-key"])))
    .handle("voidPayment", ({ params, headers, payload }) =>
      Effect.flatMap(managerCaller, (caller) => voidPayment(caller, params.payment_id, payload.void ?? {}, headers["idempotency-key"])))
    .handle("voidRefund", ({ params, headers }) => Effect.flatMap(managerCaller, (caller) => voidRefund(caller, params.refund_id, headers["idempotency-key"]))))
