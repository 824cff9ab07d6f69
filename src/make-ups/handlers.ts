import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { generateMakeUp, listMakeUpReasons } from "./service.ts"

export const MakeUpsDeskLive = HttpApiBuilder.group(Api, "makeUpsDesk", (handlers) =>
  handlers
    .handle("reasons", () => listMakeUpReasons())
    .handle("generate", ({ payload }) => generateMakeUp(payload)))
