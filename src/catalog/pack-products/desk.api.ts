import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, Forbidden, NotFound, Unprocessable } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { PackProductInput, PackProductListQuery, PackProductPage, PackProducts } from "./model.ts"
import { AccessRefusals } from "../../access/refusals.ts"
import { PackProductRefusals } from "./refusals.ts"

const who = "Owners and managers only (403 for other staff)."
const R = PackProductRefusals
/** The rules a pack product write checks, each naming its field. */
const rules = [R.fieldRequired, R.fieldTooLong, R.fieldMustBeAtLeast, R.fieldMustBeAtMost, R.fieldMustBeOneOf, R.fieldIdNotFound]
const body =
  "Body `pack_product`: `product` {name, price_cents, visibility, description, description_long, suspended} and count, " +
  "commitment_length, commitment_unit, location_id, consider_member, terms, terms_acceptance_required, terms_acceptance_type, " +
  "terms_acceptance_at_checkout, send_expiration_notifications, service_ids. The six `product` attributes are also accepted at the " +
  "top level of `pack_product`; when both are given, `product`'s wins. JSON or Rails-style form fields."

export const PackProductsDeskApi = HttpApiGroup.make("packProductsDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/pack_products", {
      query: PackProductListQuery,
      success: PackProductPage,
      error: [BadRequest, Forbidden]
    }).annotateMerge(docs("List pack products", `By name, paginated (20 per page); deleted ones are gone. ${who}`, [AccessRefusals.managerRequired]))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/pack_products/:id", {
      params: { id: IdFromString },
      success: PackProducts,
      error: [NotFound, Forbidden]
    }).annotateMerge(docs("Get a pack product", who, [AccessRefusals.managerRequired, R.packProductNotFound]))
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/desk/pack_products", {
      payload: Schema.Struct({ pack_product: PackProductInput }),
      success: PackProducts.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, Unprocessable]
    }).annotateMerge(
      docs(
        "Create a pack product",
        `${body} Required: name, price_cents, visibility (Everyone, Members, Staff, New clients; any letter case), count, ` +
          "commitment_length and commitment_unit (day, week, month). Defaults: suspended, consider_member, terms_acceptance_required " +
          "and terms_acceptance_at_checkout false, terms_acceptance_type checkbox, send_expiration_notifications true, no services " +
          `(usable with every service). 422 naming each field that breaks a rule; nothing is written. ${who}`,
        [AccessRefusals.managerRequired, ...rules]
      )
    )
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/desk/pack_products/:id", {
      params: { id: IdFromString },
      payload: Schema.Struct({ pack_product: PackProductInput }),
      success: PackProducts,
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Update a pack product",
        `${body} Partial: absent fields keep their value; \`service_ids\` \`[]\` removes all, null or absent leaves them. ` +
          `Packs already sold keep what they copied at sale. ${who}`,
        [AccessRefusals.managerRequired, R.packProductNotFound, ...rules]
      )
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/api/v2/desk/pack_products/:id", {
      params: { id: IdFromString },
      error: [Forbidden, NotFound]
    }).annotateMerge(
      docs("Delete a pack product", `204. Removed from the catalog (not found afterwards); packs sold from it keep working. ${who}`, [
        AccessRefusals.managerRequired,
        R.packProductNotFound
      ])
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Pack products (staff mode)"))
