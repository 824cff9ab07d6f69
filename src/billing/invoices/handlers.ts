import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { requireManagerOrHigher, requireStandardOrHigher } from "../../access/policies.ts"
import { apiOf } from "../../shared/http-api.ts"
import { createInvoice } from "./create.ts"
import { InvoicesDeskApi } from "./desk.api.ts"
import { InvoicesFrontApi } from "./front.api.ts"
import { addItem, discountItem, getDiscount, prorateItem, removeDiscount, removeItem, removeProrate } from "./items.ts"
import { staffCaller } from "../../access/caller.ts"
import { clientCaller } from "../../catalog/services/callers.ts"
import { getInvoice, listInvoices } from "./service.ts"
import { updateInvoice } from "./update.ts"

export const InvoicesFrontLive = HttpApiBuilder.group(apiOf(InvoicesFrontApi), "invoicesFront", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) => Effect.flatMap(clientCaller, (caller) => createInvoice(caller, payload.invoice, headers["idempotency-key"])))
    .handle("get", ({ params }) => Effect.flatMap(clientCaller, (caller) => getInvoice(caller, params.id)))
    .handle("update", ({ params, payload }) => Effect.flatMap(clientCaller, (caller) => updateInvoice(caller, params.invoice_id, payload.invoice)))
    .handle("addItem", ({ params, payload }) => Effect.flatMap(clientCaller, (caller) => addItem(caller, params.invoice_id, payload)))
    .handle("removeItem", ({ params }) => Effect.flatMap(clientCaller, (caller) => removeItem(caller, params.invoice_id, params.id))))

/**
 * Who may move money: standard staff sell (create, items, settings and state events in
 * checkout; an open invoice needs a manager, service.ts); prorates and discounts are a manager's.
 */
const standardCaller = Effect.andThen(requireStandardOrHigher, staffCaller)
const managerCaller = Effect.andThen(requireManagerOrHigher, staffCaller)

export const InvoicesDeskLive = HttpApiBuilder.group(apiOf(InvoicesDeskApi), "invoicesDesk", (handlers) =>
  handlers
    .handle("create", ({ headers, payload }) => Effect.flatMap(standardCaller, (caller) => createInvoice(caller, payload.invoice, headers["idempotency-key"])))
    .handle("list", ({ query }) => listInvoices(query))
    .handle("get", ({ params }) => Effect.flatMap(staffCaller, (caller) => getInvoice(caller, params.id)))
    .handle("update", ({ params, payload }) => Effect.flatMap(standardCaller, (caller) => updateInvoice(caller, params.invoice_id, payload.invoice)))
    .handle("addItem", ({ params, payload }) => Effect.flatMap(standardCaller, (caller) => addItem(caller, params.invoice_id, payload)))
    .handle("removeItem", ({ params }) => Effect.flatMap(standardCaller, (caller) => removeItem(caller, params.invoice_id, params.id)))
    .handle("prorate", ({ params, payload }) =>
      Effect.flatMap(managerCaller, (caller) => prorateItem(caller, params.invoice_id, params.invoice_item_id, payload.prorate)))
    .handle("removeProrate", ({ params }) => Effect.flatMap(managerCaller, (caller) => removeProrate(caller, params.invoice_id, params.invoice_item_id)))
    .handle("getDiscount", ({ params }) => Effect.flatMap(staffCaller, (caller) => getDiscount(caller, params.invoice_id, params.invoice_item_id)))
    .handle("discount", ({ params, payload }) =>
      Effect.flatMap(managerCaller, (caller) => discountItem(caller, params.invoice_id, params.invoice_item_id, payload.discount)))
    .handle("removeDiscount", ({ params }) => Effect.flatMap(managerCaller, (caller) => removeDiscount(caller, params.invoice_id, params.invoice_item_id))))
