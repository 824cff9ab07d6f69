import { NotFound } from "../../shared/errors.ts"
import { refusal } from "../../shared/refusals.ts"

/** Every refusal of the sales taxes endpoints. */
export const SalesTaxRefusals = {
  salesTaxNotFound: refusal(NotFound, "sales_tax_not_found")
}
