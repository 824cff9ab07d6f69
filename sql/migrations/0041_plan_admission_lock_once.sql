-- The admission lock's two statements are planned once per connection, not on every call.
-- PL/pgSQL plans a statement with its arguments as parameters and keeps a custom plan when the
-- generic one is estimated dearer: for `o.id = any(p_occurrence_ids)` the generic plan assumes
-- several occurrences and the custom one knows the one given, so every admission re-planned the
-- statement with its four subqueries. Every path of both is by key, so the generic plan is the
-- same plan. Measured on one connection beside a 300,000-enrollment business: 0.29–0.35 ms per
-- call, 0.14 ms with generic plans (docs/benchmarks.md, "what grew with the rest of the database").
alter function lock_occurrences_for_admission(bigint, bigint[], bigint[]) set plan_cache_mode = force_generic_plan;
