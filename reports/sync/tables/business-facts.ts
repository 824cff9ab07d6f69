import { readWhole } from "./change-scope.ts"
import { franchiseId, franchiseJoin, type StoreTable } from "./types.ts"

/**
 * Two small tables of the report store that no report resource reads directly: what
 * monthly_business_metrics needs and the other tables do not hold. Both are read whole at every
 * sync (one row per business, one per staff member).
 */

/** Every business, with its local creation date (a business with no activity yet still has months). */
export const metricsBusinessesTable: StoreTable = {
  name: "metrics_businesses",
  // Small, read whole: what monthly_business_metrics alone needs.
  changes: readWhole(true),
  columns: [
    ["business_id", "BIGINT NOT NULL"],
    ["business_name", "VARCHAR"],
    ["business_subdomain", "VARCHAR"],
    ["franchise_id", "BIGINT"],
    ["currency_code", "VARCHAR"],
    ["time_zone", "VARCHAR NOT NULL"],
    ["created_date", "DATE NOT NULL"]
  ],
  select: (where) => `
    select b.id as business_id, b.name as business_name, b.subdomain as business_subdomain,
           ${franchiseId("b")} as franchise_id, b.currency_code, b.time_zone,
           (b.created_at at time zone b.time_zone)::date as created_date
    from businesses b
    ${franchiseJoin("b")}
    where ${where}`
}

/** Staff members and the local date they were added (new_staff_count). */
export const metricsStaffTable: StoreTable = {
  name: "metrics_staff",
  // Small, read whole: what monthly_business_metrics alone needs.
  changes: readWhole(true),
  columns: [
    ["business_id", "BIGINT NOT NULL"],
    ["person_id", "BIGINT NOT NULL"],
    ["added_date", "DATE NOT NULL"]
  ],
  select: (where) => `
    select s.business_id, s.person_id, (s.created_at at time zone b.time_zone)::date as added_date
    from staff_members s join businesses b on b.id = s.business_id
    where ${where}`
}
