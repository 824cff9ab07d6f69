import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { BrandingApi, BusinessFrontApi } from "./front.api.ts"
import { BusinessDeskApi } from "./desk.api.ts"
import { getBranding, getBusiness, listFranchisees } from "./service.ts"

export const BusinessFrontLive = HttpApiBuilder.group(apiOf(BusinessFrontApi), "businessFront", (handlers) =>
  handlers
    .handle("get", () => getBusiness())
    .handle("franchisees", ({ query }) => listFranchisees(query)))

export const BrandingLive = HttpApiBuilder.group(apiOf(BrandingApi), "branding", (handlers) => handlers.handle("get", () => getBranding()))

export const BusinessDeskLive = HttpApiBuilder.group(apiOf(BusinessDeskApi), "businessDesk", (handlers) =>
  handlers
    .handle("get", () => getBusiness())
    .handle("franchisees", ({ query }) => listFranchisees(query)))
