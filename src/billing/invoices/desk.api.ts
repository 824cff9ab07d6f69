import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, Forbidden, NotFound, Unprocessable } from "../../shared/errors.ts"
import { IdempotencyHeaders } from "../../shared/idempotency.ts"
import { IdFromString } from "../../shared/schemas.ts"
import {
  DeskInvoiceUpdateInput,
  DiscountInput,
  Discounts,
  InvoiceCreateInput,
  InvoiceItemAddInput,
  InvoiceListQuery,
  InvoicePage,
  Invoices,
  ProrateInput
} from "./model.ts"
import { InvoiceRefusals as R } from "./refusals.ts"

export const CREATE_RULES =
  "`plan_products` (one or more: `id`, `recipient_ids` default the payer, `staff_member_id` required with staff-specific pricing, " +
  "`event_id` for courses, `start_date`), `booking_id` (completes with its leases when the invoice closes). A signup fee becomes " +
  "its own item tied to the plan item. The invoice starts as a `cart`. Totals: per item price → price override → prorate → " +
  "discount → coupon → sales taxes (one line each, half away from zero); totals are sums of item lines. `Idempotency-Key`: a " +
  "repeat with the same key and body answers the first invoice; another body is a 422."
const STATE_RULES =
  "`state_event` names the next state: cart → open, cart_hidden, canceled; cart_hidden → cart, open, canceled; open → on_hold, " +
  "canceled; on_hold → open, canceled; closed when nothing is outstanding and the invoice has an item (closing creates the person " +
  "plans and completes a linked booking); closed and canceled are final. `state_events` lists what is valid now."

/** Who may call; limited staff move no money, demoted staff have no staff mode at all. */
const STANDARD = "Standard staff, managers and owners (403 for limited staff). "
const OWED =
  "Once the invoice is open or on hold (what the client owes), only managers and owners change it: 403 for standard staff. "
const MANAGER = "Managers and owners only (403 for standard and limited staff). "

const item = { invoice_id: IdFromString, invoice_item_id: IdFromString }

/** The refusals of each path, shared by both modes where the path is (front.api.ts). */
export const CREATE_REFUSALS = [R.fieldRequired, R.fieldIdNotFound, R.fieldMustBeDate, R.invoiceProductSuspended]
export const UPDATE_REFUSALS = [
  R.invoiceNotFound,
  R.invoiceNotEditable,
  R.invoiceOwedManagerRequired,
  R.invoiceHasPayments,
  R.invoiceStateEventInvalid,
  R.fieldIdNotFound,
  R.fieldRequired,
  R.fieldIsInvalid,
  R.fieldMustBeOneOf
]
/** What every item change checks first (items.ts `changeInvoice`); the owed-invoice rule never stops a manager. */
const CHANGE_REFUSALS = [R.invoiceNotFound, R.invoiceNotEditable, R.invoiceHasPayments]
export const ADD_ITEM_REFUSALS = [...CHANGE_REFUSALS, R.invoiceOwedManagerRequired, R.invoiceItemBodyTwice, R.planProductRequired, ...CREATE_REFUSALS]
export const REMOVE_ITEM_REFUSALS = [...CHANGE_REFUSALS, R.invoiceOwedManagerRequired, R.invoiceItemNotFound, R.invoiceSignupFeeAlone]
const AMOUNT_REFUSALS = [R.fieldRequired, R.fieldMustBeAtLeast, R.fieldMustBeAtMost]
const PRORATE_REFUSALS = [...CHANGE_REFUSALS, R.invoiceItemNotFound, R.invoiceProrateNotMembership, R.invoiceProrateCountUnlimited, ...AMOUNT_REFUSALS]
const DISCOUNT_REFUSALS = [...CHANGE_REFUSALS, R.invoiceItemNotFound, R.invoiceDiscountOneOf, ...AMOUNT_REFUSALS]

export const InvoicesDeskApi = HttpApiGroup.make("invoicesDesk")
  .add(
    HttpApiEndpoint.post("create", "/api/v2/desk/invoices", {
      headers: IdempotencyHeaders,
      payload: Schema.Struct({ invoice: InvoiceCreateInput }),
      success: Invoices.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Create an invoice", STANDARD + "`payer_id` is required (a live person of the business). " + CREATE_RULES, CREATE_REFUSALS))
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/invoices", {
      query: InvoiceListQuery,
      success: InvoicePage,
      error: [BadRequest, Unprocessable]
    }).annotateMerge(
      docs("List invoices", "Newest first, paginated. Only id, total_cents, total, state_events, send_receipt, receipt_email, currency, person_id, state.", [R.fieldMustBeOneOf])
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/invoices/:id", {
      params: { id: IdFromString },
      success: Invoices,
      error: NotFound
    }).annotateMerge(docs("Get an invoice", "Every field (staff mode).", [R.invoiceNotFound]))
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/desk/invoices/:invoice_id", {
      params: { invoice_id: IdFromString },
      payload: Schema.Struct({ invoice: DeskInvoiceUpdateInput }),
      success: Invoices,
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Update an invoice",
        STANDARD +
          "Once the invoice is open or on hold, only managers and owners change its coupon or location, hold, reopen or cancel it " +
          "(403 for standard staff); paying and closing it, its receipt settings, recipients and booking stay standard staff's. " +
          "location_id, commission_recipient_id, tip_recipient_id (staff members), send_receipt, receipt_email (required when send_receipt), " +
          "coupon_code (empty removes it), booking_id; settings change only while the invoice is not closed or canceled. " + STATE_RULES,
        UPDATE_REFUSALS
      )
    )
  )
  .add(
    HttpApiEndpoint.post("addItem", "/api/v2/desk/invoices/:invoice_id/invoice_items", {
      params: { invoice_id: IdFromString },
      payload: InvoiceItemAddInput,
      success: Invoices.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Add an item", STANDARD + OWED + "One plan product, as on create: `plan_product`, or `invoice_item` around it. Answers the invoice.", ADD_ITEM_REFUSALS))
  )
  .add(
    HttpApiEndpoint.delete("removeItem", "/api/v2/desk/invoices/:invoice_id/invoice_items/:id", {
      params: { invoice_id: IdFromString, id: IdFromString },
      success: Invoices,
      error: [Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Remove an item", STANDARD + OWED + "A signup fee cannot be removed alone (422); removing its plan item removes both. The invoice stays, even empty.", REMOVE_ITEM_REFUSALS))
  )
  .add(
    HttpApiEndpoint.post("prorate", "/api/v2/desk/invoices/:invoice_id/invoice_items/:invoice_item_id/prorates", {
      params: item,
      payload: Schema.Struct({ prorate: ProrateInput }),
      success: Invoices.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Prorate an item",
        MANAGER +
          "Membership items. `amount_cents` (not negative) is deducted from the item; `initial_punchcard_count` (not negative, limited " +
          "memberships only) sets the first visits. An existing proration is updated; an invalid request writes nothing.",
        PRORATE_REFUSALS
      )
    )
  )
  .add(
    HttpApiEndpoint.delete("removeProrate", "/api/v2/desk/invoices/:invoice_id/invoice_items/:invoice_item_id/prorates", {
      params: item,
      success: Invoices,
      error: [Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Remove a proration", MANAGER + "The amount and the punchcard count return to the product's; 404 when none.", [...CHANGE_REFUSALS, R.invoiceItemNotFound, R.invoiceProrateNotFound]))
  )
  .add(
    HttpApiEndpoint.get("getDiscount", "/api/v2/desk/invoices/:invoice_id/invoice_items/:invoice_item_id/discounts", {
      params: item,
      success: Discounts,
      error: NotFound
    }).annotateMerge(docs("Get an item's discount", "404 when the item has none (a coupon's share is not the item's discount).", [R.invoiceNotFound, R.invoiceItemNotFound, R.invoiceDiscountNotFound]))
  )
  .add(
    HttpApiEndpoint.post("discount", "/api/v2/desk/invoices/:invoice_id/invoice_items/:invoice_item_id/discounts", {
      params: item,
      payload: Schema.Struct({ discount: DiscountInput }),
      success: Invoices.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Discount an item", MANAGER + "`amount_cents` (fixed) or `percent` (0–100), not negative, not both; replaces the item's discount.", DISCOUNT_REFUSALS))
  )
  .add(
    HttpApiEndpoint.delete("removeDiscount", "/api/v2/desk/invoices/:invoice_id/invoice_items/:invoice_item_id/discounts", {
      params: item,
      success: Invoices,
      error: [Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Remove an item's discount", MANAGER + "404 when none.", [...CHANGE_REFUSALS, R.invoiceItemNotFound, R.invoiceDiscountNotFound]))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Invoices (staff mode)"))
