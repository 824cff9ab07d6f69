import { Forbidden, NotFound } from "../shared/errors.ts"
import { refusal } from "../shared/refusals.ts"

/** The access layer's refusals: a host that names no business or account, and the staff policies. Every staff endpoint behind a policy lists the one it checks. */
export const AccessRefusals = {
  accountHostRequired: refusal(NotFound, "account_host_required"),
  businessHostRequired: refusal(NotFound, "business_host_required"),
  ownerRequired: refusal(Forbidden, "owner_required"),
  authorOrManagerRequired: refusal(Forbidden, "author_or_manager_required"),
  standardStaffRequired: refusal(Forbidden, "standard_staff_required"),
  managerRequired: refusal(Forbidden, "manager_required")
}
