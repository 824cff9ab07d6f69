-- Failed sign-ins, counted per account (its e-mail address, whether or not an account has it)
-- and per client IP, shared by every API process (src/auth/sign-in-throttle.ts).
--
-- Each key's window starts at its first failure and lasts SIGN_IN_WINDOW_SECONDS. Within it,
-- `failures` counts the attempts that were let through (an attempt is counted before its
-- password is checked, and handed back when it succeeds), and `next_attempt_at` is when the
-- next one may come: at once for the first few, then after delays that double, and at the
-- window's end once the budget is spent. The key is a SHA-256 digest: no address is stored.
--
-- Not tenant data (accounts span businesses): on Citus this table stays on the coordinator.
create table sign_in_throttles (
  key_digest bytea primary key,
  failures integer not null check (failures >= 0),
  window_ends_at timestamptz not null,
  next_attempt_at timestamptz not null
);
create index sign_in_throttles_window_idx on sign_in_throttles (window_ends_at);
