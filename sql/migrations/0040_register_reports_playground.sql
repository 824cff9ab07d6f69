-- The reports playground (/reports on every business host) signs in as a first-party public
-- client: authorization code with PKCE, no secret, so production carries no secret for it.
-- Its redirect URI is a path: that page on the business host the authorization runs on
-- (src/oauth/redirect.ts), so one row serves every business, present and future.
insert into oauth_applications (client_id, client_secret_hash, name, redirect_uri, is_public)
values ('reports-playground', null, 'Reports playground', '/reports', true)
on conflict (client_id) do nothing;
