import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unauthorized, Unprocessable } from "../../shared/errors.ts"
import { IdempotencyHeaders } from "../../shared/idempotency.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { CREATE_RULES } from "./desk.api.ts"
import { FrontInvoiceUpdateInput, InvoiceCreateInput, Invoices, InvoiceItemAddInput } from "./model.ts"

export const InvoicesFrontApi = HttpApiGroup.make("invoicesFront")
  .add(
    HttpApiEndpoint.post("create", "/api/v2/front/invoices", {
      headers: IdempotencyHeaders,
      payload: Schema.Struct({ invoice: InvoiceCreateInput }),
      success: Invoices.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Create an invoice", "The payer is the token's person; recipients are them or their dependents. " + CREATE_RULES))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/invoices/:id", {
      params: { id: IdFromString },
      success: Invoices,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get an invoice", "Only the invoice's person (anyone else: not found). Common fields plus person and coupon."))
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/front/invoices/:invoice_id", {
      params: { invoice_id: IdFromString },
      payload: Schema.Struct({ invoice: FrontInvoiceUpdateInput }),
      success: Invoices,
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Update an invoice", "`state_event` (as staff mode: open → on_hold included) and `coupon_code` (empty removes it)."))
  )
  .add(
    HttpApiEndpoint.post("addItem", "/api/v2/front/invoices/:invoice_id/invoice_items", {
      params: { invoice_id: IdFromString },
      payload: InvoiceItemAddInput,
      success: Invoices.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Add an item", "One plan product, as on create: `plan_product`, or `invoice_item` around it."))
  )
  .add(
    HttpApiEndpoint.delete("removeItem", "/api/v2/front/invoices/:invoice_id/invoice_items/:id", {
      params: { invoice_id: IdFromString, id: IdFromString },
      success: Invoices,
      error: [NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Remove an item", "A signup fee cannot be removed alone; the invoice stays, even empty."))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Invoices (client mode)"))
