-- A checkout's rows stop locking their business's row. A foreign key check locks the parent row
-- FOR KEY SHARE until commit; in one busy business every open checkout held that lock on the one
-- `businesses` row, so each new locker made a new MultiXact of all of them and rewrote the row's
-- xmax (measured with bench:checkout: about 2 of the 4 MultiXacts per checkout in one business,
-- none over ten businesses).
--
-- The three keys dropped here were redundant: each table keeps a composite key whose NOT NULL
-- columns name a parent of the same business, and that parent references `businesses` itself,
-- so no row can name a business that does not exist, nor a parent of another business:
--   invoices  (business_id, person_id)       → people (business_id, id); people.business_id → businesses
--   payments  (business_id, invoice_id)      → invoices (business_id, id), and (business_id, person_id) → people
--   plans     (business_id, plan_product_id) → plan_products (business_id, id); plan_products.business_id → businesses
-- Deleting a business is refused as before while it has such rows: their parents' keys to
-- `businesses` (no action) refuse it, and those parents cannot go first while these rows name them.
alter table invoices drop constraint invoices_business_id_fkey;
alter table payments drop constraint payments_business_id_fkey;
alter table plans drop constraint plans_business_id_fkey;
