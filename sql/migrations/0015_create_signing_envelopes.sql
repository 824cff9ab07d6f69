-- The sandbox signing provider's envelopes (src/platform/signing/sandbox.ts): the built-in
-- stand-in for an external document-signing service, served by the API itself. Its state lives
-- here, not in memory, so any API process can show the signing page, record the signer's
-- choice and answer the envelope's status. A real provider keeps this on its side; the plan
-- terms only hold the envelope's id (plan_terms.document_id).
create table signing_envelopes (
  business_id bigint not null references businesses (id),
  -- Random and unguessable (128 bits, base64url): the signing page's address carries it.
  id text not null check (length(id) between 16 and 64),
  -- What the envelope is for, in the caller's terms (e.g. plan_terms:12), for support.
  reference text not null,
  signer_name text not null,
  signer_email text,
  document_text text not null,
  status text not null default 'pending' check (status in ('pending', 'signed', 'declined')),
  -- When the signer signed or declined; the first choice is final.
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (business_id, id),
  check ((status = 'pending') = (completed_at is null))
);
