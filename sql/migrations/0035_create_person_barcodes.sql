-- Barcodes of people (spec: people search's `barcodes` field): the codes on a client's card or
-- key tag, several per person. Set with `barcodes` on desk people create and update; search
-- matches a whole code, case-insensitively.
create table person_barcodes (
  business_id bigint not null,
  person_id bigint not null,
  barcode text not null check (barcode <> '' and length(barcode) <= 100),
  primary key (business_id, person_id, barcode),
  foreign key (business_id, person_id) references people (business_id, id)
);
create index person_barcodes_code_idx on person_barcodes (business_id, lower(barcode));
