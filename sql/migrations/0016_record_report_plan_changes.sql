-- The report store's incremental refresh re-reads the people and occurrences whose rows may have
-- changed (reports/sync). Plans reach many rows: a punch pays a visit (enrollments: is_paid,
-- paid_with, plan_id, ...), and any change to a plan, its holders, holds or punches can change
-- which plans are available to its holders (enrollments' available_plans, clients' current_plans,
-- has_membership, has_plan_on_hold, ...). Deleted punches, holds and holders leave no timestamp,
-- plan_people has none at all, and the punch's `visits.punch_id` is cleared by a foreign-key
-- action that does not touch `visits.updated_at`; so every write to these tables is recorded
-- here by trigger, whoever writes. The refresh reads the plans (their holders, and the visits
-- they paid) and the punched visits changed since its watermark; the full rebuild prunes it.
create table report_plan_changes (
  business_id bigint not null,
  plan_id bigint not null,
  -- A holder added or removed, or the person of a punch.
  person_id bigint,
  -- The visit a punch paid (or stopped paying).
  visit_id bigint,
  changed_at timestamptz not null default now()
);
create index report_plan_changes_at_idx on report_plan_changes (changed_at);

-- Statement triggers with transition tables (one per event, as PostgreSQL requires): a bulk
-- write (the demo seeds, a plan deleted with its punches) records in one insert.
create function record_plan_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into report_plan_changes (business_id, plan_id) select business_id, id from old_rows;
  else
    insert into report_plan_changes (business_id, plan_id) select business_id, id from new_rows;
  end if;
  return null;
end
$$;

create function record_plan_person_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into report_plan_changes (business_id, plan_id, person_id) select business_id, plan_id, person_id from old_rows;
  else
    insert into report_plan_changes (business_id, plan_id, person_id) select business_id, plan_id, person_id from new_rows;
  end if;
  return null;
end
$$;

create function record_plan_hold_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into report_plan_changes (business_id, plan_id) select business_id, plan_id from old_rows;
  else
    insert into report_plan_changes (business_id, plan_id) select business_id, plan_id from new_rows;
  end if;
  return null;
end
$$;

create function record_punch_change() returns trigger language plpgsql as $$
begin
  if tg_op in ('DELETE', 'UPDATE') then
    insert into report_plan_changes (business_id, plan_id, person_id, visit_id)
    select business_id, plan_id, person_id, visit_id from old_rows;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into report_plan_changes (business_id, plan_id, person_id, visit_id)
    select business_id, plan_id, person_id, visit_id from new_rows;
  end if;
  return null;
end
$$;

create trigger plans_record_update after update on plans
  referencing new table as new_rows for each statement execute function record_plan_change();
create trigger plans_record_delete after delete on plans
  referencing old table as old_rows for each statement execute function record_plan_change();

create trigger plan_people_record_insert after insert on plan_people
  referencing new table as new_rows for each statement execute function record_plan_person_change();
create trigger plan_people_record_delete after delete on plan_people
  referencing old table as old_rows for each statement execute function record_plan_person_change();

create trigger plan_holds_record_insert after insert on plan_holds
  referencing new table as new_rows for each statement execute function record_plan_hold_change();
create trigger plan_holds_record_update after update on plan_holds
  referencing new table as new_rows for each statement execute function record_plan_hold_change();
create trigger plan_holds_record_delete after delete on plan_holds
  referencing old table as old_rows for each statement execute function record_plan_hold_change();

create trigger punches_record_insert after insert on punches
  referencing new table as new_rows for each statement execute function record_punch_change();
create trigger punches_record_update after update on punches
  referencing old table as old_rows new table as new_rows for each statement execute function record_punch_change();
create trigger punches_record_delete after delete on punches
  referencing old table as old_rows for each statement execute function record_punch_change();
