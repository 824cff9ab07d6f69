import { occurrenceColumns, occurrenceCtes, occurrenceFrom, occurrenceRowsChanges, occurrenceSelect } from "./event-occurrences.ts"
import { fullName, type StoreTable } from "./types.ts"

/** One row per staff member of each occurrence; `where` is a condition on the occurrence `o`. */
export const eventOccurrenceStaffMembersTable: StoreTable = {
  name: "event_occurrence_staff_members",
  changes: occurrenceRowsChanges,
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...occurrenceColumns,
    ["person_id", "BIGINT NOT NULL"],
    ["full_name", "VARCHAR"],
    ["email", "VARCHAR"],
    ["phone", "VARCHAR"],
    ["address", "VARCHAR"],
    ["home_location_id", "BIGINT"],
    ["home_location_name", "VARCHAR"],
    ["role", "VARCHAR"]
  ],
  select: (where) => `${occurrenceCtes(where)}
    select
      o.business_id || '-' || o.id || '-' || p.id as key,${occurrenceSelect},
      p.id as person_id,
      ${fullName("p")} as full_name,
      p.email::text as email,
      p.phone,
      p.address,
      p.location_id as home_location_id,
      hl.name as home_location_name,
      sm.role
    ${occurrenceFrom}
    join event_occurrence_staff_members os on os.business_id = o.business_id and os.event_occurrence_id = o.id
    join staff_members sm on sm.business_id = os.business_id and sm.id = os.staff_member_id
    join people p on p.business_id = sm.business_id and p.id = sm.person_id
    left join locations hl on hl.business_id = p.business_id and hl.id = p.location_id`
}
