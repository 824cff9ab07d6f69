-- The admission lock finds each occurrence, person and visit by its own key, one lookup per id,
-- instead of `= any(array)`. Its plans are made once per connection (0041) with the statistics of
-- that moment. For `= any(array)` a generic plan assumes ten ids, so an exact key costs ten index
-- descents, and on tables whose statistics were taken while they were small a walk of the
-- business's or the occurrence's rows looked cheaper: the visitors' lookup read every visit of the
-- occurrence and filtered the people (a 1,000-visit occurrence: 1,000 index entries per booking).
-- With one id per lookup the unique index answers in one descent, whatever the statistics say. The
-- lookups are LATERAL subqueries with a row lock or a LIMIT, which PostgreSQL runs once per id in
-- the ids' order (it does not flatten them into a join), so the locks are still taken in id order;
-- the caller passes the occurrence ids sorted and distinct.
create or replace function lock_occurrences_for_admission(
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
  visitors integer[],
  gone_people bigint[]
) language plpgsql volatile set plan_cache_mode = force_generic_plan as $$
declare
  live bigint[];
begin
  perform 1 from unnest(p_occurrence_ids) as asked(id)
  cross join lateral (
    select from event_occurrences o where o.business_id = p_business_id and o.id = asked.id for no key update
  ) locked;

  -- A row a deletion changed while this waited is checked again as it is now (deleted_at set).
  select coalesce(array_agg(locked.id), '{}') into live
  from (select distinct person from unnest(p_person_ids) as person order by person) as asked(id)
  cross join lateral (
    select p.id from people p where p.business_id = p_business_id and p.id = asked.id and p.deleted_at is null for share
  ) locked;

  return query
    select o.id, o.service_id, o.event_id, o.state, o.capacity, o.start_at, o.end_at, o.location_id,
           coalesce((select array_agg(s.staff_member_id::int order by s.staff_member_id) from event_occurrence_staff_members s
                     where s.business_id = o.business_id and s.event_occurrence_id = o.id), '{}'),
           to_char((o.start_at at time zone b.time_zone)::date, 'YYYY-MM-DD'),
           coalesce((select p.taken from event_occurrence_places p
                     where p.business_id = o.business_id and p.event_occurrence_id = o.id), 0),
           coalesce((select array_agg(asked.id::int) from (select distinct person from unnest(p_person_ids) as person) as asked(id)
                     cross join lateral (
                       select from visits v
                       where v.business_id = o.business_id and v.event_occurrence_id = o.id and v.person_id = asked.id
                       limit 1
                     ) visit), '{}'),
           coalesce((select array_agg(g) from unnest(p_person_ids) g where g <> all(live)), '{}')
    from unnest(p_occurrence_ids) as asked(id)
    cross join lateral (
      select * from event_occurrences o where o.business_id = p_business_id and o.id = asked.id limit 1
    ) o
    join businesses b on b.id = o.business_id
    order by o.id;
end
$$;
