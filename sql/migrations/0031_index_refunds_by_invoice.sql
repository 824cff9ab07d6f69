-- An invoice's refunds by invoice: the Core API's invoice reads and the report sync's client money
-- (settled refunds per invoice of each payer) looked them up through (business_id, payment_id),
-- which scanned every refund of the business per invoice: at 5 million enrollments the clients
-- extraction of a full rebuild did not finish.
create index refunds_invoice_idx on refunds (business_id, invoice_id);
