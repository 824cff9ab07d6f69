-- Forms of payment (spec: Form of payment), their vaulting sessions, each business's payment
-- configuration, and the sandbox payment gateway's state (src/platform/payments/sandbox.ts).
-- A card number or CVV is never stored: a card is a gateway token plus what the spec shows
-- (network, last four, expiry, names). ACH numbers are stored masked only.

create table forms_of_payment (
  id bigserial primary key,
  business_id bigint not null references businesses (id),
  person_id bigint not null,
  type text not null check (type in ('creditcard', 'ach')),
  first_name text not null default '',
  last_name text not null default '',
  autobill boolean not null default false,
  -- Credit cards: the gateway's reusable token and what the spec shows of the card.
  gateway_token text,
  card_type text check (card_type in ('visa', 'master_card', 'american_express', 'discover', 'unknown')),
  expire_month int check (expire_month between 1 and 12),
  expire_year int,
  last_four text check (last_four ~ '^[0-9]{4}$'),
  -- ACH (read-only records of the import): numbers masked before they reach this table.
  account_name text,
  account_type text check (account_type in ('savings', 'checking')),
  account_holder_type text check (account_holder_type in ('personal', 'business')),
  account_number_masked text,
  routing_number_masked text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (business_id, person_id) references people (business_id, id),
  check (type <> 'creditcard' or (gateway_token is not null and card_type is not null and last_four is not null))
);
-- At most one autobill form per person; the service keeps it exactly one while any exist.
create unique index forms_of_payment_autobill on forms_of_payment (business_id, person_id) where autobill;
create index forms_of_payment_person on forms_of_payment (business_id, person_id, id);

-- Step one of vaulting opens a session; its random id is the step-three address (single-use,
-- expiring), so a browser following the gateway's redirect needs no bearer header.
create table form_of_payment_vaultings (
  business_id bigint not null references businesses (id),
  id text not null check (length(id) between 16 and 64),
  person_id bigint not null,
  mode text not null check (mode in ('front', 'desk')),
  gateway_form_id text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  form_of_payment_id bigint references forms_of_payment (id),
  created_at timestamptz not null,
  primary key (business_id, id),
  foreign key (business_id, person_id) references people (business_id, id)
);

-- A business's payment configuration; no row means the defaults (src/payment-configuration).
create table payment_configurations (
  business_id bigint primary key references businesses (id),
  accepted_types text[] not null,
  external_methods text[] not null default '{}',
  accepted_card_types text[] not null,
  cvv_required boolean not null,
  address_required boolean not null,
  postal_required boolean not null,
  check (accepted_types <@ array['creditcard', 'check', 'cash', 'ach']::text[]),
  check (accepted_card_types <@ array['visa', 'master_card', 'american_express', 'discover']::text[])
);

-- The sandbox gateway's vaulted cards: a token and what the spec shows, plus how the sandbox
-- treats charges on the card (derived from the documented test numbers). Never the number or CVV.
create table sandbox_gateway_cards (
  token text primary key,
  business_id bigint not null references businesses (id),
  card_type text not null,
  last_four text not null,
  expire_month int not null,
  expire_year int not null,
  first_name text not null,
  last_name text not null,
  behaviour text not null check (behaviour in ('succeed', 'decline', 'insufficient_funds')),
  created_at timestamptz not null
);

-- The sandbox gateway's hosted card forms: one per vaulting, single-use. Holds the outcome of
-- the one POST: the vaulted card's token, or the problems (field names and codes, no values).
create table sandbox_gateway_forms (
  business_id bigint not null references businesses (id),
  id text not null check (length(id) between 16 and 64),
  return_url text not null,
  expires_at timestamptz not null,
  require_cvv boolean not null,
  require_address boolean not null,
  require_postal boolean not null,
  accepted_card_types text[] not null,
  state text not null default 'open' check (state in ('open', 'vaulted', 'failed')),
  token text references sandbox_gateway_cards (token),
  problems jsonb,
  submitted_at timestamptz,
  created_at timestamptz not null,
  primary key (business_id, id)
);

-- The sandbox's charges and refunds: any process agrees, and one idempotency key is one
-- operation (a retry answers the first outcome).
create table sandbox_gateway_transactions (
  id text primary key,
  business_id bigint not null references businesses (id),
  kind text not null check (kind in ('charge', 'refund')),
  idempotency_key text not null,
  token text,
  charge_id text references sandbox_gateway_transactions (id),
  amount_cents bigint not null check (amount_cents > 0),
  currency text not null,
  description text not null default '',
  status text not null check (status in ('succeeded', 'declined', 'voided')),
  decline_reason text,
  created_at timestamptz not null,
  unique (business_id, idempotency_key)
);

-- The sandbox's setup intents (processor_connect): a secret for the client's library, confirmed
-- with a test card on the sandbox's page; the service then saves the card as a form of payment.
create table sandbox_gateway_setup_intents (
  business_id bigint not null references businesses (id),
  id text not null check (length(id) between 16 and 64),
  client_secret text not null unique,
  -- The caller's note on whom it is for (e.g. person:12), answered back with the card.
  reference text not null,
  token text references sandbox_gateway_cards (token),
  created_at timestamptz not null,
  primary key (business_id, id)
);
