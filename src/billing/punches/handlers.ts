import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { PunchesDeskApi } from "./desk.api.ts"
import { createPunch, deletePunch, getPunch } from "./service.ts"

export const PunchesDeskLive = HttpApiBuilder.group(apiOf(PunchesDeskApi), "punchesDesk", (handlers) =>
  handlers
    .handle("get", ({ params }) => getPunch(params.id))
    .handle("create", ({ payload }) => createPunch(payload.punch))
    .handle("delete", ({ params }) => deletePunch(params.id)))
