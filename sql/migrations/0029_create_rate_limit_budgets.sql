-- The rate limits' shared budgets: one row per limited key (a token or an IP address, with
-- its limit and window), shared by every API process on the database.
--
-- A process does not count each request here: it leases a slice of the window's budget with
-- one upsert (src/platform/rate-limit-postgres.ts), spends it in memory and comes back when it
-- is empty. `leased` only grows within a window and never passes `max_requests`, so the
-- requests allowed in a window never exceed the limit, however many processes serve; slices
-- not spent by the window's end are lost. The key is a SHA-256 digest: neither a token nor an
-- address is stored.
--
-- Not tenant data (a key is not a business's): on Citus this table stays on the coordinator.
create table rate_limit_budgets (
  key_digest bytea primary key,
  max_requests integer not null check (max_requests >= 0),
  window_ends_at timestamptz not null,
  -- Requests handed out to processes in the current window.
  leased integer not null check (leased between 0 and max_requests),
  -- The slice the last lease granted (read back by that lease's RETURNING).
  last_grant integer not null default 0
);
create index rate_limit_budgets_window_idx on rate_limit_budgets (window_ends_at);
