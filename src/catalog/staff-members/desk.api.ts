import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { DeskAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { StaffMemberRefusals } from "./refusals.ts"
import { NotFound } from "../../shared/errors.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { StaffMemberDesk } from "./model.ts"

const one = Schema.Struct({ staff_members: Schema.Array(StaffMemberDesk) })

export const StaffMembersDeskApi = HttpApiGroup.make("staffMembersDesk")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/desk/staff_members", {
      query: PageQuery,
      success: Schema.Struct({ staff_members: Schema.Array(StaffMemberDesk), ...PageFields })
    }).annotateMerge(docs("List staff members", "Every current staff member, hidden ones included. Paginated (default 100 per page)."))
  )
  .add(HttpApiEndpoint.get("me", "/api/v2/desk/staff_members/me", { success: one }).annotateMerge(docs("The calling staff member")))
  .add(
    HttpApiEndpoint.get("get", "/api/v2/desk/staff_members/:id", { params: { id: IdFromString }, success: one, error: NotFound }).annotateMerge(
      docs("Get a staff member", undefined, [StaffMemberRefusals.staffMemberNotFound])
    )
  )
  .middleware(DeskAccess)
  .annotateMerge(docs("Staff members (staff mode)"))
