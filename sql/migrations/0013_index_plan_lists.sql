-- Person plans: the plan lists read newest start first, paginated.
create index plans_start_idx on plans (business_id, start_date desc, id desc);

-- Membership is a plan (docs/decisions.md, Plans and packs): `is_member`, its list filter and
-- `membership` are computed from plans with the plan rules. The column stays for the writers
-- that still set it (the import's and the demo's `is_member` flag, from which the demo gives
-- members their membership plan); nothing answers from it.
comment on column people.is_member is
  'Not read for membership answers (computed from plans); kept as the import''s and the demo''s is_member flag.';
