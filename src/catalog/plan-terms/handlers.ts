import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { PlanTermsFrontApi } from "./front.api.ts"
import { completePlanTerms, getPlanTerms } from "./service.ts"

export const PlanTermsFrontLive = HttpApiBuilder.group(apiOf(PlanTermsFrontApi), "planTermsFront", (handlers) =>
  handlers
    .handle("list", ({ params }) => getPlanTerms(params.plan_id))
    .handle("get", ({ params }) => getPlanTerms(params.plan_id, params.id))
    .handle("complete", ({ params, query }) => completePlanTerms(params.plan_id, params.id, query.completion)))
