import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { getBranding, getBusiness, listFranchisees } from "./service.ts"

export const BusinessFrontLive = HttpApiBuilder.group(Api, "businessFront", (handlers) =>
  handlers
    .handle("get", () => getBusiness())
    .handle("franchisees", ({ query }) => listFranchisees(query)))

export const BrandingLive = HttpApiBuilder.group(Api, "branding", (handlers) => handlers.handle("get", () => getBranding()))

export const BusinessDeskLive = HttpApiBuilder.group(Api, "businessDesk", (handlers) =>
  handlers
    .handle("get", () => getBusiness())
    .handle("franchisees", ({ query }) => listFranchisees(query)))
