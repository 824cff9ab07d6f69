-- The report store's incremental refresh re-reads the invoices whose rows may have changed
-- (reports/sync/tables/invoices.ts). An invoice's report row reads its items, their
-- adjustments, its payments, refunds and billing periods: payments and refunds do not touch
-- `invoices.updated_at` (a failed card payment is written in a transaction of its own), refunds
-- have no `updated_at` at all, and adjustments are replaced by the money rule. So every write to
-- these tables is recorded here by trigger, whoever writes; the full rebuild prunes it.
create table report_invoice_changes (
  business_id bigint not null,
  invoice_id bigint not null,
  changed_at timestamptz not null default now()
);
create index report_invoice_changes_at_idx on report_invoice_changes (changed_at);

-- Statement triggers with transition tables (one per event, as PostgreSQL requires), so a bulk
-- write (the demo seeds, a recompute of every line) records in one insert.
create function record_invoice_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into report_invoice_changes (business_id, invoice_id) select distinct business_id, id from old_rows;
  else
    insert into report_invoice_changes (business_id, invoice_id) select distinct business_id, id from new_rows;
  end if;
  return null;
end
$$;

-- Items, payments, refunds and billing periods carry their invoice's id.
create function record_invoice_part_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into report_invoice_changes (business_id, invoice_id)
    select distinct business_id, invoice_id from old_rows where invoice_id is not null;
  else
    insert into report_invoice_changes (business_id, invoice_id)
    select distinct business_id, invoice_id from new_rows where invoice_id is not null;
  end if;
  return null;
end
$$;

-- Adjustments reach their invoice through their item (a cascade from a deleted item finds
-- none, but the item's own trigger recorded the invoice).
create function record_invoice_adjustment_change() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into report_invoice_changes (business_id, invoice_id)
    select distinct it.business_id, it.invoice_id from old_rows a
      join invoice_items it on it.business_id = a.business_id and it.id = a.invoice_item_id;
  else
    insert into report_invoice_changes (business_id, invoice_id)
    select distinct it.business_id, it.invoice_id from new_rows a
      join invoice_items it on it.business_id = a.business_id and it.id = a.invoice_item_id;
  end if;
  return null;
end
$$;

create trigger invoices_record_insert after insert on invoices
  referencing new table as new_rows for each statement execute function record_invoice_change();
create trigger invoices_record_update after update on invoices
  referencing new table as new_rows for each statement execute function record_invoice_change();
create trigger invoices_record_delete after delete on invoices
  referencing old table as old_rows for each statement execute function record_invoice_change();

create trigger invoice_items_record_insert after insert on invoice_items
  referencing new table as new_rows for each statement execute function record_invoice_part_change();
create trigger invoice_items_record_update after update on invoice_items
  referencing new table as new_rows for each statement execute function record_invoice_part_change();
create trigger invoice_items_record_delete after delete on invoice_items
  referencing old table as old_rows for each statement execute function record_invoice_part_change();

create trigger invoice_item_adjustments_record_insert after insert on invoice_item_adjustments
  referencing new table as new_rows for each statement execute function record_invoice_adjustment_change();
create trigger invoice_item_adjustments_record_update after update on invoice_item_adjustments
  referencing new table as new_rows for each statement execute function record_invoice_adjustment_change();
create trigger invoice_item_adjustments_record_delete after delete on invoice_item_adjustments
  referencing old table as old_rows for each statement execute function record_invoice_adjustment_change();

create trigger payments_record_insert after insert on payments
  referencing new table as new_rows for each statement execute function record_invoice_part_change();
create trigger payments_record_update after update on payments
  referencing new table as new_rows for each statement execute function record_invoice_part_change();

create trigger refunds_record_insert after insert on refunds
  referencing new table as new_rows for each statement execute function record_invoice_part_change();
create trigger refunds_record_update after update on refunds
  referencing new table as new_rows for each statement execute function record_invoice_part_change();

create trigger membership_billing_periods_record_insert after insert on membership_billing_periods
  referencing new table as new_rows for each statement execute function record_invoice_part_change();
create trigger membership_billing_periods_record_update after update on membership_billing_periods
  referencing new table as new_rows for each statement execute function record_invoice_part_change();
