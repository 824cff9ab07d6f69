import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { IdempotencyHeaders } from "../../shared/idempotency.ts"
import { IdFromString, PersonTargetParam } from "../../shared/schemas.ts"
import {
  HoldInput,
  Holds,
  PackCreateInput,
  Packs,
  PersonPlanListQuery,
  PlanListQuery,
  PlanPage,
  PlanUpdateInput,
  Plans
} from "./model.ts"
import { PlanRefusals as R } from "./refusals.ts"

const packCreateDescription =
  "Any staff member. `person_ids` is required (live people of the business; the first is the primary participant). " +
  "Defaults from the pack product: count, price_cents, description; start_date today (business-local); end_date the day " +
  "before start_date plus the product's commitment (inclusive last day); visits_shared true for one person, false for several. " +
  "A deleted pack product is not found; a suspended one cannot be sold (422). With terms to accept, the plan's terms record is " +
  "created for the primary person. `Idempotency-Key`: a repeat with the same key and body answers the first response without a " +
  "second pack; the same key with another body is a 422."
const filterDescription =
  "Paginated (20 per page), newest start first. `filter`: active, active_with_upcoming, current, inactive, upcoming, usable " +
  "(evaluated today, business-local); `include_holds` adds each plan's holds. `visits_remaining` counts the visits left to this person."

const PACK_REFUSALS = [
  R.packsProductNotFound,
  R.packsProductSuspended,
  R.fieldRequired,
  R.fieldIdNotFound,
  R.fieldMustBeDate,
  R.fieldMustBeAtLeast,
  R.planEndBeforeStart
]
const UPDATE_REFUSALS = [R.planNotFound, R.fieldRequired, R.fieldMustBeDate, R.planEndBeforeStart, R.planAlreadyCanceled, R.planAlreadyDeactivated, R.planNotDeactivated]
const HOLD_REFUSALS = [R.planNotFound, R.fieldMustBeDate, R.planEndBeforeStart, R.planHoldOverlaps]

export const PlansDeskApi = HttpApiGroup.make("plansDesk")
  .add(
    HttpApiEndpoint.post("createPack", "/api/v2/desk/pack_products/:pack_product_id/packs", {
      params: { pack_product_id: IdFromString },
      headers: IdempotencyHeaders,
      payload: Schema.Struct({ pack: PackCreateInput }),
      success: Packs.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unprocessable]
    }).annotateMerge(docs("Give a pack", packCreateDescription, PACK_REFUSALS))
  )
  .add(
    HttpApiEndpoint.get("getPack", "/api/v2/desk/packs/:id", {
      params: { id: IdFromString },
      success: Packs,
      error: NotFound
    }).annotateMerge(docs("Get a pack", "A plan of another type is not found.", [R.packNotFound]))
  )
  .add(
    HttpApiEndpoint.delete("deletePack", "/api/v2/desk/packs/:id", {
      params: { id: IdFromString },
      error: NotFound
    }).annotateMerge(docs("Delete a pack", "204. The visits it paid become unpaid; its punches, holds and terms are deleted with it.", [R.packNotFound]))
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/plans", {
      query: PlanListQuery,
      success: PlanPage,
      error: BadRequest
    }).annotateMerge(docs("List every person plan", "Paginated (20 per page), newest start first; `include_holds` adds each plan's holds."))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/plans/:id", {
      params: { id: IdFromString },
      success: Plans,
      error: NotFound
    }).annotateMerge(docs("Get a person plan", "With its holds.", [R.planNotFound]))
  )
  .add(
    HttpApiEndpoint.get("personList", "/api/v2/desk/people/:person_id/plans", {
      params: { person_id: PersonTargetParam },
      query: PersonPlanListQuery,
      success: PlanPage,
      error: [BadRequest, NotFound]
    }).annotateMerge(docs("List a person's plans", filterDescription, [R.personNotFound]))
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/desk/plans/:id", {
      params: { id: IdFromString },
      payload: Schema.Struct({ plan: PlanUpdateInput }),
      success: Plans,
      error: [BadRequest, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Cancel, deactivate or reactivate a plan",
        "`state_event`: cancel (sets canceled_at and ends the plan at `end_date`, default today), deactivate (the plan stops at once), " +
          "reactivate (undoes a deactivation). `end_date` alone moves the last day. Announced as plan.updated.", UPDATE_REFUSALS
      )
    )
  )
  .add(
    HttpApiEndpoint.post("addHold", "/api/v2/desk/plans/:id/holds", {
      params: { id: IdFromString },
      payload: Schema.Struct({ hold: HoldInput }),
      success: Holds.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Put a plan on hold",
        "From `start_date` (default today) through `end_date` (inclusive; absent or null: until the hold is removed). " +
          "Holds of a plan may not overlap (422). The plan cannot be used while on hold.", HOLD_REFUSALS
      )
    )
  )
  .add(
    HttpApiEndpoint.delete("removeHold", "/api/v2/desk/plans/:id/holds/:hold_id", {
      params: { id: IdFromString, hold_id: IdFromString },
      error: NotFound
    }).annotateMerge(docs("Remove a hold", "204.", [R.planNotFound, R.planHoldNotFound]))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Plans and packs (staff mode)"))
