-- The admission lock also holds its people (FOR SHARE, in id order, after the occurrences) and
-- answers which of them are gone (unknown or deleted) once it holds them. A person's deletion
-- locks the person (FOR NO KEY UPDATE, which FOR SHARE waits for and excludes) and refuses while
-- future visits exist; a visit's foreign key only takes FOR KEY SHARE, which a deletion's lock
-- does not exclude. So without this an admission that checked the person before the deletion
-- committed inserted its visit after it: a deleted person with a future visit. Now either the
-- deletion waits for the admission and sees its visit, or the admission waits for the deletion
-- and finds the person gone.
drop function lock_occurrences_for_admission(bigint, bigint[], bigint[]);
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
  visitors integer[],
  gone_people bigint[]
) language plpgsql volatile as $$
declare
  live bigint[];
begin
  perform 1 from event_occurrences o
  where o.business_id = p_business_id and o.id = any(p_occurrence_ids)
  order by o.id
  for no key update;

  -- A row a deletion changed while this waited is checked again as it is now (deleted_at set).
  select coalesce(array_agg(p.id), '{}') into live from (
    select p.id from people p
    where p.business_id = p_business_id and p.id = any(p_person_ids) and p.deleted_at is null
    order by p.id
    for share
  ) p;

  return query
    select o.id, o.service_id, o.event_id, o.state, o.capacity, o.start_at, o.end_at, o.location_id,
           coalesce((select array_agg(s.staff_member_id::int order by s.staff_member_id) from event_occurrence_staff_members s
                     where s.business_id = o.business_id and s.event_occurrence_id = o.id), '{}'),
           to_char((o.start_at at time zone b.time_zone)::date, 'YYYY-MM-DD'),
           coalesce((select p.taken from event_occurrence_places p
                     where p.business_id = o.business_id and p.event_occurrence_id = o.id), 0),
           coalesce((select array_agg(v.person_id::int) from visits v
                     where v.business_id = o.business_id and v.event_occurrence_id = o.id
                       and v.person_id = any(p_person_ids)), '{}'),
           coalesce((select array_agg(g) from unnest(p_person_ids) g where g <> all(live)), '{}')
    from event_occurrences o
    join businesses b on b.id = o.business_id
    where o.business_id = p_business_id and o.id = any(p_occurrence_ids)
    order by o.id;
end
$$;

-- Planned once per connection, as before (0041): every access in it is by key.
alter function lock_occurrences_for_admission(bigint, bigint[], bigint[]) set plan_cache_mode = force_generic_plan;
