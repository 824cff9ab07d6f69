import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unauthorized, Unprocessable } from "../../shared/errors.ts"
import { IdempotencyHeaders } from "../../shared/idempotency.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { ADD_ITEM_REFUSALS, CREATE_REFUSALS, CREATE_RULES, REMOVE_ITEM_REFUSALS, UPDATE_REFUSALS } from "./desk.api.ts"
import { FrontInvoiceUpdateInput, InvoiceCreateInput, Invoices, InvoiceItemAddInput } from "./model.ts"
import { type Refusal } from "../../shared/refusals.ts"
import { InvoiceRefusals } from "./refusals.ts"

/** A client is never stopped by the staff rule on owed invoices. */
const front = (refusals: ReadonlyArray<Refusal>) => refusals.filter((refusal) => refusal !== InvoiceRefusals.invoiceOwedManagerRequired)

export const InvoicesFrontApi = HttpApiGroup.make("invoicesFront")
  .add(
    HttpApiEndpoint.post("create", "/api/v2/front/invoices", {
      headers: IdempotencyHeaders,
      payload: Schema.Struct({ invoice: InvoiceCreateInput }),
      success: Invoices.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Create an invoice", "The payer is the token's person; recipients are them or their dependents. " + CREATE_RULES, CREATE_REFUSALS))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/invoices/:id", {
      params: { id: IdFromString },
      success: Invoices,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get an invoice", "Only the invoice's person (anyone else: not found). Common fields plus person and coupon.", [InvoiceRefusals.invoiceNotFound]))
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/front/invoices/:invoice_id", {
      params: { invoice_id: IdFromString },
      payload: Schema.Struct({ invoice: FrontInvoiceUpdateInput }),
      success: Invoices,
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Update an invoice", "`state_event` (as staff mode: open → on_hold included) and `coupon_code` (empty removes it).", front(UPDATE_REFUSALS)))
  )
  .add(
    HttpApiEndpoint.post("addItem", "/api/v2/front/invoices/:invoice_id/invoice_items", {
      params: { invoice_id: IdFromString },
      payload: InvoiceItemAddInput,
      success: Invoices.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Add an item", "One plan product, as on create: `plan_product`, or `invoice_item` around it.", front(ADD_ITEM_REFUSALS)))
  )
  .add(
    HttpApiEndpoint.delete("removeItem", "/api/v2/front/invoices/:invoice_id/invoice_items/:id", {
      params: { invoice_id: IdFromString, id: IdFromString },
      success: Invoices,
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Remove an item", "A signup fee cannot be removed alone; the invoice stays, even empty.", front(REMOVE_ITEM_REFUSALS)))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Invoices (client mode)"))
