-- People (issue 3, item 6): custom field values of a person, the profile fields the person
-- request attributes name, single providers, and the indexes person search uses.

-- Request attributes of a person (spec, "Person (request attributes)") the core table lacks.
alter table people
  add column pronoun text,
  add column address text,
  add column guardian_name text,
  add column guardian_email text,
  -- Phone search matches complete numbers by their digits only (spec, people search).
  add column phone_digits text generated always as (nullif(regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g'), '')) stored;

create index people_phone_digits_idx on people (business_id, phone_digits) where phone_digits is not null;
create index people_created_at_idx on people (business_id, created_at, id);
create index people_updated_at_idx on people (business_id, updated_at, id);

-- Name and e-mail search: trigram similarity for typos and partial words.
create extension if not exists pg_trgm;
create index people_name_trgm_idx on people
  using gin ((lower(first_name || ' ' || coalesce(middle_name || ' ', '') || last_name)) gin_trgm_ops);
create index people_email_trgm_idx on people using gin ((lower(email::text)) gin_trgm_ops) where email is not null;

-- "provider_ids sets the single provider" (spec, PUT /desk/people/:id): a dependent has at most one.
create unique index person_relationships_single_provider_idx on person_relationships (business_id, dependent_id);

-- Lets a selection name its option together with the option's field, so the database itself
-- refuses an option of another field.
alter table custom_field_options add constraint custom_field_options_field_option_key unique (business_id, custom_field_id, id);

-- One value per person and field: text fields use text_value, boolean fields boolean_value,
-- select fields their selections (several for a multi-select field).
create table person_custom_field_values (
  business_id bigint not null,
  person_id bigint not null,
  custom_field_id bigint not null,
  text_value text,
  boolean_value boolean,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (business_id, person_id, custom_field_id),
  foreign key (business_id, person_id) references people (business_id, id) on delete cascade,
  foreign key (business_id, custom_field_id) references custom_fields (business_id, id) on delete cascade,
  check (num_nonnulls(text_value, boolean_value) <= 1)
);
create index person_custom_field_values_field_idx on person_custom_field_values (business_id, custom_field_id);

create table person_custom_field_selections (
  business_id bigint not null,
  person_id bigint not null,
  custom_field_id bigint not null,
  custom_field_option_id bigint not null,
  primary key (business_id, person_id, custom_field_id, custom_field_option_id),
  foreign key (business_id, person_id, custom_field_id)
    references person_custom_field_values (business_id, person_id, custom_field_id) on delete cascade,
  foreign key (business_id, custom_field_id, custom_field_option_id)
    references custom_field_options (business_id, custom_field_id, id) on delete cascade
);
create index person_custom_field_selections_option_idx on person_custom_field_selections (business_id, custom_field_option_id);

-- updated_at follows every real change of a value row (a no-op update leaves it alone).
create or replace function person_custom_field_values_touch() returns trigger language plpgsql as $$
begin
  new.updated_at := now();
  return new;
end $$;

create trigger person_custom_field_values_touch
  before update on person_custom_field_values
  for each row when (old.text_value is distinct from new.text_value or old.boolean_value is distinct from new.boolean_value)
  execute function person_custom_field_values_touch();
