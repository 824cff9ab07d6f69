import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { DeskAccess, FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { BadRequest, Forbidden, NotFound, Unauthorized, Unprocessable } from "../../shared/errors.ts"
import { IdFromString } from "../../shared/schemas.ts"
import {
  FormOfPaymentCreateInput,
  FormOfPaymentListQuery,
  FormOfPaymentPage,
  FormOfPaymentUpdateInput,
  FormsOfPayment,
  VaultingStarted
} from "./model.ts"
import { FormOfPaymentRefusals as R } from "./refusals.ts"

const startDescription =
  "Vaulting step one: `type` is required, only `creditcard` (422 otherwise). Answers the gateway's single-use card form " +
  "`form_url`, valid ten minutes. Step two posts the `billing-*` fields there; its redirect (303) is step three's address " +
  "on this host, which answers 200 `{}` once the form of payment exists (the person's first becomes autobill), or a 4xx " +
  "naming the problem (declined, a field, expired, already used). That address needs no token: it is single-use and expires."
const updateDescription =
  "`autobill: true` makes this form the default for automatic billing and turns the others off; `false` on the default " +
  "is a 422 (turn another one on instead). `id`, when given, must be the path's."

/** Who may call in staff mode; demoted staff have no staff mode at all. */
const STANDARD = "Standard staff, managers and owners (403 for limited staff). "

/** The person first (client mode: the token's own; staff mode: any live person, the same answer), then the form. */
const GET_REFUSALS = [R.personNotFound, R.formOfPaymentNotFound]
const START_REFUSALS = [R.personNotFound, R.formOfPaymentTypeBlank, R.formOfPaymentTypeInvalid, R.formOfPaymentCreditcardNotAccepted, R.paymentGatewayUnavailable]
const UPDATE_REFUSALS = [...GET_REFUSALS, R.formOfPaymentIdMismatch, R.formOfPaymentAutobillRequired]
const COMPLETE_REFUSALS = [
  R.vaultingNotFound,
  R.vaultingUsed,
  R.vaultingExpired,
  R.vaultingPending,
  R.vaultingDeclined,
  R.vaultingFieldBlank,
  R.vaultingFieldInvalid,
  R.vaultingCardExpired,
  R.vaultingCardNotAccepted,
  R.paymentGatewayUnavailable
]

const personParams = { person_id: IdFromString }
const formParams = { person_id: IdFromString, id: IdFromString }

export const FormsOfPaymentFrontApi = HttpApiGroup.make("formsOfPaymentFront")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/people/:person_id/form_of_payments", {
      params: personParams,
      query: FormOfPaymentListQuery,
      success: FormOfPaymentPage,
      error: [BadRequest, NotFound, Unauthorized]
    }).annotateMerge(docs("List one's forms of payment", "The token's own person only (anyone else is not found); oldest first, paginated.", [R.personNotFound]))
  )
  .add(
    HttpApiEndpoint.get("me", "/api/v2/front/people/me/form_of_payments/:id", {
      params: { id: IdFromString },
      success: FormsOfPayment,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get one of one's forms of payment", "Only the logged-in person's.", GET_REFUSALS))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/people/:person_id/form_of_payments/:id", {
      params: formParams,
      success: FormsOfPayment,
      error: [NotFound, Unauthorized]
    }).annotateMerge(docs("Get one of one's forms of payment", "The token's own person only.", GET_REFUSALS))
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/front/people/:person_id/form_of_payments", {
      params: personParams,
      payload: Schema.Struct({ form_of_payment: FormOfPaymentCreateInput }),
      success: VaultingStarted.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Begin vaulting a card for oneself", startDescription, START_REFUSALS))
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/front/people/:person_id/form_of_payments/:id", {
      params: formParams,
      payload: Schema.Struct({ form_of_payment: FormOfPaymentUpdateInput }),
      success: FormsOfPayment,
      error: [BadRequest, NotFound, Unauthorized, Unprocessable]
    }).annotateMerge(docs("Choose one's autobill form of payment", updateDescription, UPDATE_REFUSALS))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Forms of payment (client mode)"))

export const FormsOfPaymentDeskApi = HttpApiGroup.make("formsOfPaymentDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/people/:person_id/form_of_payments", {
      params: personParams,
      query: FormOfPaymentListQuery,
      success: FormOfPaymentPage,
      error: [BadRequest, NotFound]
    }).annotateMerge(docs("List a person's forms of payment", "Any live person of the business; oldest first, paginated.", [R.personNotFound]))
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/people/:person_id/form_of_payments/:id", {
      params: formParams,
      success: FormsOfPayment,
      error: NotFound
    }).annotateMerge(docs("Get a person's form of payment", undefined, GET_REFUSALS))
  )
  .add(
    HttpApiEndpoint.post("create", "/api/v2/desk/people/:person_id/form_of_payments", {
      params: personParams,
      payload: Schema.Struct({ form_of_payment: FormOfPaymentCreateInput }),
      success: VaultingStarted.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Begin vaulting a card for a person", STANDARD + startDescription, START_REFUSALS))
  )
  .add(
    HttpApiEndpoint.put("update", "/api/v2/desk/people/:person_id/form_of_payments/:id", {
      params: formParams,
      payload: Schema.Struct({ form_of_payment: FormOfPaymentUpdateInput }),
      success: FormsOfPayment,
      error: [BadRequest, Forbidden, NotFound, Unprocessable]
    }).annotateMerge(docs("Choose a person's autobill form of payment", STANDARD + updateDescription, UPDATE_REFUSALS))
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Forms of payment (staff mode)"))

const completeDescription =
  "Vaulting step three, the address the gateway's form redirects to. No token: the session in the path is single-use and " +
  "expires ten minutes after step one. 200 `{}` when the form of payment was saved; 422 naming the problem otherwise."

/** Step three: no access middleware, the path's session is the credential (service.ts). */
export const FormOfPaymentVaultingApi = HttpApiGroup.make("formOfPaymentVaulting")
  .add(
    HttpApiEndpoint.get("front", "/api/v2/front/people/:person_id/form_of_payments/vaulting/:session", {
      params: { person_id: IdFromString, session: Schema.String },
      success: Schema.Struct({}),
      error: [NotFound, Unprocessable]
    }).annotateMerge(docs("Complete vaulting (client mode)", completeDescription, COMPLETE_REFUSALS))
  )
  .add(
    HttpApiEndpoint.get("desk", "/api/v2/desk/people/:person_id/form_of_payments/vaulting/:session", {
      params: { person_id: IdFromString, session: Schema.String },
      success: Schema.Struct({}),
      error: [NotFound, Unprocessable]
    }).annotateMerge(docs("Complete vaulting (staff mode)", completeDescription, COMPLETE_REFUSALS))
  )
  .annotateMerge(docs("Forms of payment: vaulting step three"))
