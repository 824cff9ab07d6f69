-- Every API process caches a few answers read on each request (token grants, business hosts,
-- OAuth client ids). A change to what they cache notifies channel `studio_cache` from the
-- writing transaction itself (delivered at commit, never after a rollback), and each process's
-- listener (src/platform/cache-events.ts) drops the entries concerned, so a revoked token or a
-- renamed host takes effect in every process within a second. The payload is `<kind>:<key>`.

create function studio_notify_cache() returns trigger language plpgsql as $$
declare
  kind text := tg_argv[0];
  row_key text;
begin
  if kind = 'token' then
    row_key := encode(coalesce(new.token_hash, old.token_hash), 'hex');
  elsif kind = 'business' then
    row_key := coalesce(new.id, old.id)::text;
  elsif kind = 'application' then
    row_key := coalesce(new.client_id, old.client_id);
  else
    -- grants: a person or staff member whose tokens' grants may be cached
    row_key := coalesce(new.business_id, old.business_id)::text;
  end if;
  perform pg_notify('studio_cache', kind || ':' || row_key);
  return null;
end
$$;

create trigger access_tokens_notify_cache
  after update or delete on access_tokens
  for each row execute function studio_notify_cache('token');

-- Inserts too: a subdomain asked for before the business existed is cached as unknown.
create trigger businesses_notify_cache
  after insert or update or delete on businesses
  for each row execute function studio_notify_cache('business');

create trigger oauth_applications_notify_cache
  after insert or update or delete on oauth_applications
  for each row execute function studio_notify_cache('application');

-- A grant names the caller's person and staff role in the business.
create trigger staff_members_notify_cache
  after update of role or delete on staff_members
  for each row execute function studio_notify_cache('grants');

create trigger people_notify_cache
  after update of deleted_at, account_id or delete on people
  for each row execute function studio_notify_cache('grants');
