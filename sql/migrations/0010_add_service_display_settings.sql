-- Service settings the public API's records carry and its clients read (compatibility notes,
-- "Keys of the public documentation's examples"). Stored so a business (the import) can set
-- them; the defaults are what every existing service behaved like.
alter table services
  -- Clients see "staff" instead of the staff member's name.
  add column anonymous_staff boolean not null default false,
  -- Null: the business's default (places left are shown).
  add column show_capacity_to_clients boolean,
  add column show_rooms_to_clients boolean not null default false,
  add column allow_tips boolean not null default false,
  -- Null: not decided (no merchandise is sold with the service yet).
  add column no_merchandise_price boolean,
  add column supports_single_payer boolean not null default false,
  -- Visits a new client may take for free before paying.
  add column number_of_free_visits integer not null default 0 check (number_of_free_visits between 0 and 1000);
