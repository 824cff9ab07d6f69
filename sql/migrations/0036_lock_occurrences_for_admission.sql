-- The capacity rule's lock and count in one round trip (src/enrollment/visits/capacity.ts).
-- Admitting visits locks the occurrences (in id order, FOR NO KEY UPDATE) and then counts their
-- holding visits and who among some people is on them. The count must be read in a statement
-- that starts after the lock was granted: its snapshot then sees the visits of every admitter
-- this one waited for. A subquery of the locking statement would not (it reads the statement's
-- own, older snapshot), but each statement of a volatile PL/pgSQL function takes a new
-- snapshot under READ COMMITTED, so the function does both at the cost of one round trip.
-- The rule itself (what fits, who is a duplicate) stays in TypeScript; `holding_states` is
-- passed by the caller so the list of states that take a place is written once. Each row also
-- carries what auto-pay asks of a visit's occurrence (its location, staff members and
-- business-local date), so a visit admitted here is paid without being read back.
create function lock_occurrences_for_admission(
  p_business_id bigint,
  p_occurrence_ids bigint[],
  p_person_ids bigint[],
  p_holding_states text[]
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
           coalesce(c.taken, 0), coalesce(c.visitors, '{}')
    from event_occurrences o
    join businesses b on b.id = o.business_id
    left join lateral (
      select (count(*) filter (where v.state = any(p_holding_states)))::int as taken,
             array_agg(v.person_id::int) filter (where v.person_id = any(p_person_ids)) as visitors
      from visits v
      where v.business_id = o.business_id and v.event_occurrence_id = o.id
    ) c on true
    where o.business_id = p_business_id and o.id = any(p_occurrence_ids)
    order by o.id;
end
$$;
