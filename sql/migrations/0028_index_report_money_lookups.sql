-- The report store reads a plan's invoice items (sale and renewals) through the recipient rows
-- that name the plan: enrollments' estimated_amount, per paid plan of a synced occurrence.
create index invoice_item_recipients_plan_idx on invoice_item_recipients (business_id, plan_id) where plan_id is not null;
-- The store's incremental refresh looks for forms of payment stored or edited, and for invoices that
-- fell due since the last sync, every minute.
create index forms_of_payment_updated_idx on forms_of_payment (updated_at);
create index invoices_due_idx on invoices (business_id, invoice_date);
