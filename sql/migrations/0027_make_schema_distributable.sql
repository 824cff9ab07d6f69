-- Every key of a tenant table includes business_id, so the schema can be distributed by business
-- on Citus (src/platform/citus/tables.ts, checked by test/platform/citus-readiness.test.ts).
-- The tables below had keys of their own id or token only; the queries already name business_id.

-- Forms of payment: the key becomes (business_id, id); payments and vaultings reference it by both.
alter table payments drop constraint payments_form_of_payment_id_fkey;
alter table form_of_payment_vaultings drop constraint form_of_payment_vaultings_form_of_payment_id_fkey;
alter table forms_of_payment drop constraint forms_of_payment_pkey;
alter table forms_of_payment add primary key (business_id, id);
alter table payments add constraint payments_form_of_payment_id_fkey
  foreign key (business_id, form_of_payment_id) references forms_of_payment (business_id, id) on delete set null (form_of_payment_id);
alter table form_of_payment_vaultings add constraint form_of_payment_vaultings_form_of_payment_id_fkey
  foreign key (business_id, form_of_payment_id) references forms_of_payment (business_id, id);

-- The sandbox gateway's cards: tokens are random, but unique per business is what a shard can check.
alter table sandbox_gateway_forms drop constraint sandbox_gateway_forms_token_fkey;
alter table sandbox_gateway_setup_intents drop constraint sandbox_gateway_setup_intents_token_fkey;
alter table sandbox_gateway_cards drop constraint sandbox_gateway_cards_pkey;
alter table sandbox_gateway_cards add primary key (business_id, token);
alter table sandbox_gateway_forms add constraint sandbox_gateway_forms_token_fkey
  foreign key (business_id, token) references sandbox_gateway_cards (business_id, token);
alter table sandbox_gateway_setup_intents add constraint sandbox_gateway_setup_intents_token_fkey
  foreign key (business_id, token) references sandbox_gateway_cards (business_id, token);

alter table sandbox_gateway_setup_intents drop constraint sandbox_gateway_setup_intents_client_secret_key;
alter table sandbox_gateway_setup_intents add constraint sandbox_gateway_setup_intents_client_secret_key unique (business_id, client_secret);

-- The sandbox's charges and refunds: a refund references its charge within the business.
alter table sandbox_gateway_transactions drop constraint sandbox_gateway_transactions_charge_id_fkey;
alter table sandbox_gateway_transactions drop constraint sandbox_gateway_transactions_pkey;
alter table sandbox_gateway_transactions add primary key (business_id, id);
alter table sandbox_gateway_transactions add constraint sandbox_gateway_transactions_charge_id_fkey
  foreign key (business_id, charge_id) references sandbox_gateway_transactions (business_id, id);
