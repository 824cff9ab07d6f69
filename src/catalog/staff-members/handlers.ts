import { HttpApiBuilder } from "effect/http-api"
import { apiOf } from "../../shared/http-api.ts"
import { StaffMembersFrontApi } from "./front.api.ts"
import { StaffMembersDeskApi } from "./desk.api.ts"
import { getCurrentStaffMember, getStaffMember, listStaffMembers } from "./service.ts"

export const StaffMembersFrontLive = HttpApiBuilder.group(apiOf(StaffMembersFrontApi), "staffMembersFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => listStaffMembers(query, { clientVisibleOnly: true }))
    .handle("get", ({ params }) => getStaffMember(params.id, { clientVisibleOnly: true })))

export const StaffMembersDeskLive = HttpApiBuilder.group(apiOf(StaffMembersDeskApi), "staffMembersDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listStaffMembers(query, { clientVisibleOnly: false }))
    .handle("me", () => getCurrentStaffMember)
    .handle("get", ({ params }) => getStaffMember(params.id, { clientVisibleOnly: false })))
