import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { MakeUpsDeskApi } from "./desk.api.ts"
import { generateMakeUp, listMakeUpReasons } from "./service.ts"

export const MakeUpsDeskLive = HttpApiBuilder.group(apiOf(MakeUpsDeskApi), "makeUpsDesk", (handlers) =>
  handlers
    .handle("reasons", () => listMakeUpReasons())
    .handle("generate", ({ payload }) => generateMakeUp(payload)))
