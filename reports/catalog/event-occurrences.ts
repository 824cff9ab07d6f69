import {
  SERVICE_GROUPINGS,
  occurrenceDetail,
  occurrenceSummary,
  serviceBuckets
} from "./service-fields.ts"
import { type ColumnDef, type ResourceCatalog, byName, commonDetail, commonGroupings, commonSummary } from "./types.ts"

/**
 * Event occurrences (`event_occurrences`): one row per occurrence, with its enrollment
 * counts. The store's `event_occurrences` table is read from the schedule (sync/tables/event-occurrences.ts);
 * the enrollment counts are 0 until visits and waitlists exist.
 */
const detail = byName([...commonDetail({ currency: true }), ...occurrenceDetail])
const pick = (name: string): ColumnDef => detail.get(name)!

export const eventOccurrencesCatalog: ResourceCatalog = {
  resource: "event_occurrences",
  source: "event_occurrences",
  businessIdSql: "r.business_id",
  keySql: "r.key",
  keyOrder: ["r.business_id", "r.event_occurrence_id"],
  timeZoneSql: "r.time_zone",
  detail,
  summary: byName([...commonSummary, ...occurrenceSummary]),
  groupings: byName([
    ...commonGroupings,
    ...["attendance_completed", "instructor_names", ...SERVICE_GROUPINGS].map(pick),
    ...serviceBuckets
  ]),
  logical: new Map()
}
