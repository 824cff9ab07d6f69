import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { FrontAccess } from "../../access/access.ts"
import { docs } from "../../shared/docs.ts"
import { StaffMemberRefusals } from "./refusals.ts"
import { NotFound } from "../../shared/errors.ts"
import { PageFields, PageQuery } from "../../shared/pagination.ts"
import { IdFromString } from "../../shared/schemas.ts"
import { StaffMemberFront } from "./model.ts"

export const StaffMembersFrontApi = HttpApiGroup.make("staffMembersFront")
  .add(
    HttpApiEndpoint.get("list", "/api/v2/front/staff_members", {
      query: PageQuery,
      success: Schema.Struct({ staff_members: Schema.Array(StaffMemberFront), ...PageFields })
    }).annotateMerge(
      docs(
        "List staff members",
        "No token needed (`client_id`). Staff hidden in client mode are left out. No search. Paginated (default 100 per page)."
      )
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/front/staff_members/:id", {
      params: { id: IdFromString },
      success: Schema.Struct({ staff_members: Schema.Array(StaffMemberFront) }),
      error: NotFound
    }).annotateMerge(docs("Get a staff member", "A staff member hidden in client mode is not found (404).", [
        StaffMemberRefusals.staffMemberNotFound
      ]))
  )
  .middleware(FrontAccess)
  .annotateMerge(docs("Staff members (client mode)"))
