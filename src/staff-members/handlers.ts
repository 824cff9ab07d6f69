import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api.ts"
import { getCurrentStaffMember, getStaffMember, listStaffMembers } from "./service.ts"

export const StaffMembersFrontLive = HttpApiBuilder.group(Api, "staffMembersFront", (handlers) =>
  handlers
    .handle("list", ({ query }) => listStaffMembers(query, { clientVisibleOnly: true }))
    .handle("get", ({ params }) => getStaffMember(params.id, { clientVisibleOnly: true })))

export const StaffMembersDeskLive = HttpApiBuilder.group(Api, "staffMembersDesk", (handlers) =>
  handlers
    .handle("list", ({ query }) => listStaffMembers(query, { clientVisibleOnly: false }))
    .handle("me", () => getCurrentStaffMember)
    .handle("get", ({ params }) => getStaffMember(params.id, { clientVisibleOnly: false })))
