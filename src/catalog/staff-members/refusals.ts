import { NotFound } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the staff members endpoints. */
export const StaffMemberRefusals = {
  staffMemberNotFound: refusal(NotFound, "staff_member_not_found")
}
