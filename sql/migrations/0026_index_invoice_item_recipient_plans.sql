-- The report store reads a plan's invoice items (sale and renewals) through the recipient rows
-- that name the plan: enrollments' estimated_amount, per paid plan of a synced occurrence.
create index invoice_item_recipients_plan_idx on invoice_item_recipients (business_id, plan_id) where plan_id is not null;
