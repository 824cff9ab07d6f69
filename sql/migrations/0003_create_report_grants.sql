-- Reporting access (issue 6): owners and the primary owner read reports by default; any other
-- staff member once an owner grants it. One row per granted staff member; deleting the staff
-- member removes the grant.
create table report_grants (
  business_id bigint not null,
  staff_member_id bigint not null,
  granted_by_staff_member_id bigint,
  created_at timestamptz not null default now(),
  primary key (business_id, staff_member_id),
  foreign key (business_id, staff_member_id) references staff_members (business_id, id) on delete cascade,
  foreign key (business_id, granted_by_staff_member_id) references staff_members (business_id, id)
    on delete set null (granted_by_staff_member_id)
);
