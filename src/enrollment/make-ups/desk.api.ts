import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, NotFound, Unprocessable } from "../../shared/errors.ts"
import { GenerateMakeUpInput, MakeUpReason, MakeUpWire } from "./model.ts"
import { makeUpEndpointRefusals as REFUSALS } from "./refusals.ts"

export const MakeUpsDeskApi = HttpApiGroup.make("makeUpsDesk")
  .add(
    HttpApiEndpoint.get("reasons", "/api/v2/desk/make_ups/reasons", {
      success: Schema.Struct({ make_up_reasons: Schema.Array(MakeUpReason) })
    }).annotateMerge(docs("List make-up reasons", "The business's reasons, in their order; not paginated."))
  )
  .add(
    HttpApiEndpoint.post("generate", "/api/v2/desk/make_ups/generate", {
      payload: GenerateMakeUpInput,
      success: Schema.Struct({ make_ups: Schema.Array(MakeUpWire) }).pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unprocessable]
    }).annotateMerge(
      docs(
        "Generate a make-up",
        "Body: `visit_id` (required, 422 when missing) and optionally `make_up` with `make_up_reason_id` (required when " +
          "`make_up` is sent; one of the business's reasons) and `free_form_reason` (at most 1000 characters). Only for a " +
          "late-canceled visit, one per visit: otherwise a 422. The make-up is a record of its own until passes exist " +
          "(`expires_on` null: no expiry).",
        REFUSALS.generate
      )
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Make-ups (staff mode)"))
