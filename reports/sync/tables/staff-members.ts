import { personChanges } from "./clients.ts"
import { customFieldValuesSql } from "./custom-fields.ts"
import { businessColumns, franchiseId, franchiseJoin, fullName, type StoreTable } from "./types.ts"

/**
 * Staff members: one row per staff member of a business, past and present (a demoted staff
 * member keeps the row, role `demoted`; a deleted person keeps it, person_state `deleted`).
 * `where` is a condition on the staff member's person `p`, as for clients, so the incremental
 * refresh re-reads them with the changed people (a staff record's own change is among those).
 *
 * The event counts are not stored: the catalog counts them at query time from the store's
 * event_occurrence_staff_members rows (reports/catalog/staff-members.ts), so they always agree
 * with that resource and split past from future by the query's clock.
 */
export const staffMembersTable: StoreTable = {
  name: "staff_members",
  // Re-read with the changed people (a staff record's change is among them).
  changes: personChanges(false),
  columns: [
    ["key", "VARCHAR NOT NULL"],
    ...businessColumns,
    ["person_id", "BIGINT NOT NULL"],
    ["staff_member_id", "BIGINT NOT NULL"],
    ["first_name", "VARCHAR"],
    ["middle_name", "VARCHAR"],
    ["last_name", "VARCHAR"],
    ["full_name", "VARCHAR"],
    ["email", "VARCHAR"],
    ["phone", "VARCHAR"],
    ["address", "VARCHAR"],
    ["birthdate", "DATE"],
    ["also_client", "BOOLEAN NOT NULL"],
    ["home_location_id", "BIGINT"],
    ["home_location_name", "VARCHAR"],
    ["person_state", "VARCHAR NOT NULL"],
    ["role", "VARCHAR NOT NULL"],
    ["show_to_clients", "BOOLEAN NOT NULL"],
    ["staff_since_date", "DATE NOT NULL"],
    // As clients' (customFieldValuesSql).
    ["custom_field_values", "VARCHAR"]
  ],
  select: (where) => `
    select
      p.business_id || '-' || p.id as key,
      p.business_id,
      b.name as business_name,
      b.subdomain as business_subdomain,
      ${franchiseId("b")} as franchise_id,
      b.currency_code,
      b.time_zone,
      p.id as person_id,
      sm.id as staff_member_id,
      p.first_name,
      p.middle_name,
      p.last_name,
      ${fullName("p")} as full_name,
      p.email::text as email,
      p.phone,
      p.address,
      p.birthdate,
      -- Also a client: the person has a visit (in any state) or holds a plan, as a client would.
      (exists (select 1 from visits v where v.business_id = p.business_id and v.person_id = p.id)
        or exists (select 1 from plan_people pp where pp.business_id = p.business_id and pp.person_id = p.id)) as also_client,
      p.location_id as home_location_id,
      hl.name as home_location_name,
      case when p.deleted_at is not null then 'deleted' when p.hidden_at is not null then 'hidden' else 'active' end as person_state,
      sm.role,
      -- As client mode lists staff (src/catalog/staff-members/repo.ts): not hidden there, not demoted.
      (not sm.hidden_in_client_mode and sm.role <> 'demoted') as show_to_clients,
      (sm.created_at at time zone b.time_zone)::date as staff_since_date,
      ${customFieldValuesSql("p")} as custom_field_values
    from staff_members sm
    join people p on p.business_id = sm.business_id and p.id = sm.person_id
    join businesses b on b.id = p.business_id
    ${franchiseJoin("b")}
    left join locations hl on hl.business_id = p.business_id and hl.id = p.location_id
    where ${where}`
}
