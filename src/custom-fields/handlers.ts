import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { listCustomFields } from "./service.ts"

export const CustomFieldsDeskLive = HttpApiBuilder.group(Api, "customFieldsDesk", (handlers) =>
  handlers.handle("list", ({ query }) => listCustomFields(query)))
