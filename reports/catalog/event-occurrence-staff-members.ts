import { STAFF_ROLES } from "../../src/access/tokens.ts"
import { SERVICE_GROUPINGS, distinct, occurrenceDetail, occurrenceSummary, serviceBuckets } from "./service-fields.ts"
import { type ColumnDef, type ResourceCatalog, byName, column, commonDetail, commonGroupings, commonSummary } from "./types.ts"

/**
 * Event occurrence staff members (`event_occurrence_staff_members`): one row per staff member
 * (instructor, trainer or organizer) of each occurrence, read from the schedule's
 * occurrence staff (sync/tables/event-occurrence-staff-members.ts).
 */
const detail = byName([
  ...commonDetail({ currency: true }),
  ...occurrenceDetail.filter((c) => c.name !== "instructor_names"),
  column("address", "string"),
  column("email", "string"),
  column("full_name", "string"),
  column("home_location_id", "integer"),
  column("home_location_name", "string"),
  column("person_id", "integer"),
  column("phone", "string"),
  column("role", "enum", "r.role", [...STAFF_ROLES].sort())
])
const pick = (name: string): ColumnDef => detail.get(name)!

export const eventOccurrenceStaffMembersCatalog: ResourceCatalog = {
  resource: "event_occurrence_staff_members",
  source: "event_occurrence_staff_members",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.event_occurrence_id", "r.person_id"],
  timeZoneSql: "r.time_zone",
  detail,
  summary: byName([...commonSummary, ...occurrenceSummary, distinct("person_count", "person_id")]),
  groupings: byName([
    ...commonGroupings,
    ...["attendance_completed", "full_name", "person_id", "role", ...SERVICE_GROUPINGS].map(pick),
    ...serviceBuckets
  ]),
  logical: new Map()
}
