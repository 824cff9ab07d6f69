import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess, FrontOrCompletionAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { PeopleRefusals } from "../../identity/people/refusals.ts"
import { PlanTermsRefusals } from "./refusals.ts"
import { NotFound, Unauthorized, Unprocessable } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { PlanTermsList } from "./model.ts"

const payerOnly = "Only for the person paying for the plan (the token's own person); anyone else, and a plan without terms, is not found."

export const PlanTermsFrontApi = HttpApiGroup.make("planTermsFront")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/plans/:plan_id/plan_terms", {
      params: { plan_id: IdFromString },
      success: PlanTermsList,
      error: [NotFound, Unauthorized]
    }).annotateMerge(
      docs(
        "Get the terms of a plan",
        `The plan's single terms record. ${payerOnly} Document terms carry \`signing_url\`, empty when signing is unavailable.`,
        [PeopleRefusals.personMeNotFound, PlanTermsRefusals.planTermsNone]
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/plans/:plan_id/plan_terms/:id", {
      params: { plan_id: IdFromString, id: IdFromString },
      success: PlanTermsList,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get the terms of a plan by id", `As the list, for the record's id. ${payerOnly}`, [
        PeopleRefusals.personMeNotFound,
        PlanTermsRefusals.planTermsNotFound
      ]))
  )
  .middleware(FrontAccess)
  // After the group's middleware, so it is not applied here: the provider's browser comes back
  // with a completion value and no token (FrontOrCompletionAccess).
  .add(
    HttpApiEndpoint.get("complete", "/api/v2/front/plans/:plan_id/plan_terms/:id/complete", {
      params: { plan_id: IdFromString, id: IdFromString },
      query: {
        completion: Schema.optional(Schema.String).annotate({
          description: "The one-time value of the signing provider's return address (a browser has no token to send)"
        })
      },
      success: PlanTermsList,
      error: [NotFound, Unauthorized, Unprocessable]
    })
      .middleware(FrontOrCompletionAccess)
      .annotateMerge(
        docs(
          "Accept the terms of a plan",
          "Checkbox terms: marks them accepted. Document terms: the signing provider sends the browser here after signing, " +
            "with a one-time `completion` value instead of a token (single use, for these terms, an hour); the payer's token " +
            "works as well. 200 when signed, 422 when declined (final), not yet signed, signing is unavailable (try again), " +
            `or the completion value is used or expired. Accepting again answers the first acceptance. ${payerOnly}`,
          [
            PeopleRefusals.personMeNotFound,
            PlanTermsRefusals.planTermsNotFound,
            PlanTermsRefusals.planTermsCompletionInvalid,
            PlanTermsRefusals.planTermsDeclined,
            PlanTermsRefusals.planTermsNotSigned,
            PlanTermsRefusals.planTermsSigningUnavailable
          ]
        )
      )
  )
  .annotateMerge(docs("Plan terms (client mode)"))
