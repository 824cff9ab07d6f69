-- A visit's payment mirror (visits.punch_id, visits.paid_for_by) goes with its punch, however the
-- punch goes: deleted through the API (which also clears it, stamping updated_at on the request's
-- clock), or cascaded from its plan (a pack deleted, a person plan removed) or anything else. The
-- foreign key clears punch_id alone; this clears paid_for_by too, so a visit never reads as paid
-- by a plan that no longer pays for it. A trigger, so every path (API, import, CLI, SQL) obeys it.
create function visits_clear_payment() returns trigger language plpgsql as $$
begin
  update visits set punch_id = null, paid_for_by = null
  where business_id = old.business_id and id = old.visit_id
    and (punch_id = old.id or (punch_id is null and paid_for_by is not null));
  return null;
end $$;

create trigger visits_clear_payment
  after delete on punches
  for each row execute function visits_clear_payment();
