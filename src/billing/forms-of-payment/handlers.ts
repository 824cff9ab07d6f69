import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { staffCaller } from "../../access/caller.ts"
import { requireStandardOrHigher } from "../../access/policies.ts"
import { clientCaller } from "../../catalog/services/callers.ts"
import { apiOf } from "../../shared/http-api.ts"
import { FormOfPaymentVaultingApi, FormsOfPaymentDeskApi, FormsOfPaymentFrontApi } from "./api.ts"
import {
  completeVaulting,
  getFormOfPayment,
  listFormsOfPayment,
  requireDeskPerson,
  requireFrontPerson,
  requireOwnPerson,
  startVaulting,
  updateFormOfPayment
} from "./service.ts"

/** Each handler checks its mode's reach first, then works on the person it answers. */
export const FormsOfPaymentFrontLive = HttpApiBuilder.group(apiOf(FormsOfPaymentFrontApi), "formsOfPaymentFront", (handlers) =>
  handlers
    .handle("list", ({ params, query }) => Effect.flatMap(requireFrontPerson(params.person_id), (person) => listFormsOfPayment(person, query)))
    .handle("me", ({ params }) => Effect.flatMap(requireFrontPerson("me"), (person) => getFormOfPayment(person, params.id)))
    .handle("get", ({ params }) => Effect.flatMap(requireFrontPerson(params.person_id), (person) => getFormOfPayment(person, params.id)))
    .handle("create", ({ params, payload }) =>
      Effect.flatMap(clientCaller, (caller) =>
        Effect.flatMap(requireOwnPerson(caller, params.person_id), (person) => startVaulting(caller, person, payload.form_of_payment))))
    .handle("update", ({ params, payload }) =>
      Effect.flatMap(requireFrontPerson(params.person_id), (person) => updateFormOfPayment(person, params.id, payload.form_of_payment))))

/** Who may move money: vaulting a card and choosing the autobill one need standard staff or higher. */
export const FormsOfPaymentDeskLive = HttpApiBuilder.group(apiOf(FormsOfPaymentDeskApi), "formsOfPaymentDesk", (handlers) =>
  handlers
    .handle("list", ({ params, query }) => Effect.flatMap(requireDeskPerson(params.person_id), (person) => listFormsOfPayment(person, query)))
    .handle("get", ({ params }) => Effect.flatMap(requireDeskPerson(params.person_id), (person) => getFormOfPayment(person, params.id)))
    .handle("create", ({ params, payload }) =>
      Effect.flatMap(Effect.andThen(requireStandardOrHigher, staffCaller), (caller) =>
        Effect.flatMap(requireDeskPerson(params.person_id), (person) => startVaulting(caller, person, payload.form_of_payment))))
    .handle("update", ({ params, payload }) =>
      Effect.flatMap(Effect.andThen(requireStandardOrHigher, requireDeskPerson(params.person_id)), (person) => updateFormOfPayment(person, params.id, payload.form_of_payment))))

export const FormOfPaymentVaultingLive = HttpApiBuilder.group(apiOf(FormOfPaymentVaultingApi), "formOfPaymentVaulting", (handlers) =>
  handlers
    .handle("front", ({ params }) => completeVaulting("front", params.person_id, params.session))
    .handle("desk", ({ params }) => completeVaulting("desk", params.person_id, params.session)))
