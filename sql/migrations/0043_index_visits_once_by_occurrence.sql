-- An occurrence's visits had two indexes that begin the same way: the unique (business, occurrence,
-- person) of people with a visit, and (business, occurrence) including the state, for counting and
-- listing them. One unique index of the three columns, including the state, serves both: a visit
-- insert or a non-HOT visit update writes one index entry less, and a lookup of some people on an
-- occurrence can no longer be planned as a walk of every visit of the occurrence. The admission
-- lock's plan is made once per connection (0041) with the statistics of that moment, and on tables
-- that were small then it read the occurrence's visits and filtered the people (a 1,000-visit
-- occurrence read 1,000 index entries per booking). Without a person the uniqueness is as before:
-- nulls are distinct, so visits without a person never conflict.
create unique index visits_occurrence_person_idx on visits (business_id, event_occurrence_id, person_id) include (state);
drop index visits_person_occurrence_idx;
drop index visits_occurrence_idx;
