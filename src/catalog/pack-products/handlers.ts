import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { PackProductsDeskApi } from "./desk.api.ts"
import { createPackProduct, deletePackProduct, getPackProduct, listPackProducts, updatePackProduct } from "./service.ts"

export const PackProductsDeskLive = HttpApiBuilder.group(apiOf(PackProductsDeskApi), "packProductsDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listPackProducts(query))
    .handle("get", ({ params }) => getPackProduct(params.id))
    .handle("create", ({ payload }) => createPackProduct(payload.pack_product))
    .handle("update", ({ params, payload }) => updatePackProduct(params.id, payload.pack_product))
    .handle("delete", ({ params }) => deletePackProduct(params.id)))
