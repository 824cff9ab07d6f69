-- Issue 29: secrets and sessions.

-- Sign-in sessions of the authorization pages, kept on the server: the cookie carries a random
-- id (signed), the row its account, host and expiry. Signing out deletes the row and a password
-- change deletes all of the account's, so every copy of the cookie stops working at once (the
-- cookie used to be a self-contained signed value that worked for 12 hours whatever happened).
create table account_sessions (
  -- SHA-256 of the cookie's random id; the id itself is never stored.
  id_hash bytea primary key,
  account_id bigint not null references accounts (id),
  -- The host it was opened on: that business, or null for the account-level host.
  business_id bigint references businesses (id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index account_sessions_account_idx on account_sessions (account_id);

-- The one-time values a signing provider sends the browser back with to a document terms'
-- `complete` (instead of the payer's access token): single-use, short-lived, bound to the terms.
create table plan_terms_completions (
  business_id bigint not null,
  -- SHA-256 of the value; the value itself is only in the signing URL's return address.
  value_hash bytea not null,
  plan_terms_id bigint not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  primary key (business_id, value_hash),
  foreign key (business_id, plan_terms_id) references plan_terms (business_id, id) on delete cascade
);
create index plan_terms_completions_terms_idx on plan_terms_completions (business_id, plan_terms_id);
