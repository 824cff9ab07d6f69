import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { CustomFieldsDeskApi } from "./desk.api.ts"
import { listCustomFields } from "./service.ts"

export const CustomFieldsDeskLive = HttpApiBuilder.group(apiOf(CustomFieldsDeskApi), "customFieldsDesk", (handlers) =>
  handlers.handle("list", ({ query }) => listCustomFields(query)))
