import { Forbidden, NotFound } from "../src/shared/errors.ts"
import { refusal } from "../src/shared/refusals.ts"

/**
 * The Reporting API's named refusals. A query's validation problems (400, every one found at
 * once) are built by normalize.ts from reports/problems.ts and are not listed here.
 */
export const ReportRefusals = {
  reportAccessDenied: refusal(Forbidden, "report_access_denied"),
  reportUnknownResource: refusal(NotFound, "report_unknown_resource"),
  ownerRequired: refusal(Forbidden, "owner_required")
}
