import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { PlansDeskApi } from "./desk.api.ts"
import { PlansFrontApi } from "./front.api.ts"
import { createPack, deletePack, getPack } from "./packs.ts"
import {
  addHold,
  getDeskPlan,
  listDeskPersonPlans,
  listDeskPlans,
  listFrontPersonPlans,
  removeHold,
  updatePlan
} from "./service.ts"

export const PlansFrontLive = HttpApiBuilder.group(apiOf(PlansFrontApi), "plansFront", (handlers) =>
  handlers.handle("personList", ({ params, query }) => listFrontPersonPlans(params.person_id, query)))

export const PlansDeskLive = HttpApiBuilder.group(apiOf(PlansDeskApi), "plansDesk", (handlers) =>
  handlers
    .handle("createPack", ({ params, headers, payload }) => createPack(params.pack_product_id, payload.pack, headers["idempotency-key"]))
    .handle("getPack", ({ params }) => getPack(params.id))
    .handle("deletePack", ({ params }) => deletePack(params.id))
    .handle("list", ({ query }) => listDeskPlans(query))
    .handle("get", ({ params }) => getDeskPlan(params.id))
    .handle("personList", ({ params, query }) => listDeskPersonPlans(params.person_id, query))
    .handle("update", ({ params, payload }) => updatePlan(params.id, payload.plan))
    .handle("addHold", ({ params, payload }) => addHold(params.id, payload.hold))
    .handle("removeHold", ({ params }) => removeHold(params.id, params.hold_id)))
