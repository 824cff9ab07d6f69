-- Complimentary passes for new clients (spec: people create `skip_complimentary_passes`, a staff
-- booking's new person `skip_new_client_passes`): a pack or single-visit pass product the
-- business gives, free, to each person it takes on. The plan given is marked is_complimentary.
alter table plan_products add column new_client_pass boolean not null default false;
alter table plan_products add constraint plan_products_new_client_pass_kind
  check (not new_client_pass or kind in ('pack', 'single_visit_pass'));
