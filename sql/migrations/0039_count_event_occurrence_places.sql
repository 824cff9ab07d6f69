-- The places an occurrence's visits take, kept as a count beside the occurrence, so the capacity
-- rule reads one row instead of counting visits (a 1,000-visit occurrence then books as fast as
-- a 10-visit one). The visits' own triggers keep it: whoever inserts, deletes or moves a visit
-- between a holding and a freeing state, in any statement, changes the count in the same
-- transaction; no writer has to remember it.
--
-- Which states take a place is written once in SQL (`visit_holds_place`) and once in TypeScript
-- (HOLDING_STATES, src/enrollment/visits/model.ts); a test holds the two equal.
--
-- A count's row is written once per admission, so it has room on its page for HOT updates
-- (fillfactor 50). No foreign key to the occurrence: the row is derived from visits, which hold one
-- each, and occurrences are never deleted (their state says so), so the first visit of an
-- occurrence need not check it again. Admitters read it after locking the occurrence (lock_occurrences_for_admission),
-- so the count they read includes every admitter they waited for.
create function visit_holds_place(state text) returns boolean
language sql immutable parallel safe
return state in ('reserved', 'registered', 'completed');

create table event_occurrence_places (
  business_id bigint not null,
  event_occurrence_id bigint not null,
  taken integer not null default 0 check (taken >= 0),
  primary key (business_id, event_occurrence_id)
) with (fillfactor = 50);

-- Inserted visits, a statement at a time (one row per occurrence however many visits).
create function event_occurrence_places_count_inserted() returns trigger language plpgsql as $$
begin
  insert into event_occurrence_places as p (business_id, event_occurrence_id, taken)
  select business_id, event_occurrence_id, count(*)::int from inserted
  where visit_holds_place(state)
  group by business_id, event_occurrence_id
  order by business_id, event_occurrence_id
  on conflict (business_id, event_occurrence_id) do update set taken = p.taken + excluded.taken;
  return null;
end $$;

-- Deleted visits, a statement at a time. The counts are locked in key order first, so two
-- statements freeing places in the same occurrences never wait on each other in a cycle.
create function event_occurrence_places_count_deleted() returns trigger language plpgsql as $$
begin
  perform 1 from event_occurrence_places p
  where (p.business_id, p.event_occurrence_id) in (select business_id, event_occurrence_id from deleted where visit_holds_place(state))
  order by p.business_id, p.event_occurrence_id
  for no key update;
  update event_occurrence_places p set taken = p.taken - d.freed
  from (select business_id, event_occurrence_id, count(*)::int as freed from deleted
        where visit_holds_place(state) group by business_id, event_occurrence_id) d
  where p.business_id = d.business_id and p.event_occurrence_id = d.event_occurrence_id;
  return null;
end $$;

-- A visit whose state crosses between holding and freeing (or that moves occurrence): a row
-- trigger, fired only by the updates that change the count (its WHEN), not by every visit update.
create function event_occurrence_places_count_updated() returns trigger language plpgsql as $$
begin
  if visit_holds_place(old.state) then
    update event_occurrence_places set taken = taken - 1
    where business_id = old.business_id and event_occurrence_id = old.event_occurrence_id;
  end if;
  if visit_holds_place(new.state) then
    insert into event_occurrence_places as p (business_id, event_occurrence_id, taken)
    values (new.business_id, new.event_occurrence_id, 1)
    on conflict (business_id, event_occurrence_id) do update set taken = p.taken + 1;
  end if;
  return null;
end $$;

create function event_occurrence_places_clear() returns trigger language plpgsql as $$
begin
  truncate event_occurrence_places;
  return null;
end $$;

create trigger visits_count_inserted_places after insert on visits
  referencing new table as inserted for each statement execute function event_occurrence_places_count_inserted();
create trigger visits_count_deleted_places after delete on visits
  referencing old table as deleted for each statement execute function event_occurrence_places_count_deleted();
create trigger visits_count_updated_places after update of state, event_occurrence_id on visits
  for each row
  when (visit_holds_place(old.state) is distinct from visit_holds_place(new.state)
        or old.event_occurrence_id is distinct from new.event_occurrence_id)
  execute function event_occurrence_places_count_updated();
create trigger visits_clear_places after truncate on visits
  for each statement execute function event_occurrence_places_clear();

insert into event_occurrence_places (business_id, event_occurrence_id, taken)
select business_id, event_occurrence_id, count(*)::int from visits
where visit_holds_place(state)
group by business_id, event_occurrence_id;

-- The admission lock now reads the count, and who among some people is on the occurrence by the
-- (occurrence, person) index, instead of reading every visit of the occurrence.
drop function lock_occurrences_for_admission(bigint, bigint[], bigint[], text[]);
create function lock_occurrences_for_admission(
  p_business_id bigint,
  p_occurrence_ids bigint[],
  p_person_ids bigint[]
) returns table (
  id bigint,
  service_id bigint,
  event_id bigint,
  state text,
  capacity integer,
  start_at timestamptz,
  end_at timestamptz,
  location_id bigint,
  staff_member_ids integer[],
  local_date text,
  taken integer,
  visitors integer[]
) language plpgsql volatile as $$
begin
  perform 1 from event_occurrences o
  where o.business_id = p_business_id and o.id = any(p_occurrence_ids)
  order by o.id
  for no key update;

  return query
    select o.id, o.service_id, o.event_id, o.state, o.capacity, o.start_at, o.end_at, o.location_id,
           coalesce((select array_agg(s.staff_member_id::int order by s.staff_member_id) from event_occurrence_staff_members s
                     where s.business_id = o.business_id and s.event_occurrence_id = o.id), '{}'),
           to_char((o.start_at at time zone b.time_zone)::date, 'YYYY-MM-DD'),
           coalesce((select p.taken from event_occurrence_places p
                     where p.business_id = o.business_id and p.event_occurrence_id = o.id), 0),
           coalesce((select array_agg(v.person_id::int) from visits v
                     where v.business_id = o.business_id and v.event_occurrence_id = o.id
                       and v.person_id = any(p_person_ids)), '{}')
    from event_occurrences o
    join businesses b on b.id = o.business_id
    where o.business_id = p_business_id and o.id = any(p_occurrence_ids)
    order by o.id;
end
$$;
