import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { staffCaller } from "../../access/caller.ts"
import { requireStandardOrHigher } from "../../access/policies.ts"
import { clientCaller } from "../../catalog/services/callers.ts"
import { apiOf } from "../../shared/http-api.ts"
import { ProcessorConnectDeskApi, ProcessorConnectFrontApi } from "./api.ts"
import { getPaymentMethod, newSetupIntent, savePaymentMethod } from "./service.ts"

export const ProcessorConnectFrontLive = HttpApiBuilder.group(apiOf(ProcessorConnectFrontApi), "processorConnectFront", (handlers) =>
  handlers
    .handle("new", () => Effect.flatMap(clientCaller, newSetupIntent))
    .handle("get", ({ query }) => Effect.flatMap(clientCaller, (caller) => getPaymentMethod(caller, query.payment_method_id)))
    .handle("save", ({ payload }) => Effect.flatMap(clientCaller, (caller) => savePaymentMethod(caller, payload.payment_method))))

/** Who may move money: saving a card for a person (and starting to) needs standard staff or higher. */
const vaultingCaller = Effect.andThen(requireStandardOrHigher, staffCaller)

export const ProcessorConnectDeskLive = HttpApiBuilder.group(apiOf(ProcessorConnectDeskApi), "processorConnectDesk", (handlers) =>
  handlers
    .handle("new", () => Effect.flatMap(vaultingCaller, newSetupIntent))
    .handle("get", ({ query }) => Effect.flatMap(staffCaller, (caller) => getPaymentMethod(caller, query.payment_method_id)))
    .handle("save", ({ payload }) => Effect.flatMap(vaultingCaller, (caller) => savePaymentMethod(caller, payload.payment_method))))
