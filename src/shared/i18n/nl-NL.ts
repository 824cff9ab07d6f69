import type { Catalog } from "./en.ts"

export const nlNL: Catalog = {
  // Routing and hosts
  route_not_found: "Geen route gevonden voor %{method} %{path}",
  method_not_allowed: "%{method} is niet toegestaan op %{path}",
  unknown_host: "Er is geen bedrijf beschikbaar op %{host}",
  business_host_required: "Dit endpoint is alleen beschikbaar op een bedrijfshost, zoals {subdomain}.%{base_domain}",
  account_host_required: "Dit endpoint is alleen beschikbaar op de accounthost %{base_domain}",
  internal_error: "Er is aan onze kant iets misgegaan. De fout is vastgelegd met verzoek-ID %{request_id}.",
  rate_limited: "Limiet voor het aantal verzoeken overschreden. Probeer het over %{seconds} seconden opnieuw.",
  // Request decoding
  invalid_json: "De verzoekbody is geen geldige JSON",
  invalid_body: "De verzoekbody kon niet worden gelezen",
  body_must_be_object: "De verzoekbody moet een JSON-object zijn",
  body_root_missing: "De verzoekbody moet zijn verpakt in \"%{root}\"",
  field_required: "%{field} moet opgegeven zijn",
  field_must_be_integer: "%{field} moet een geheel getal zijn",
  field_must_be_positive_integer: "%{field} moet een positief geheel getal zijn",
  field_must_be_number: "%{field} moet een getal zijn",
  field_must_be_boolean: "%{field} moet true of false zijn",
  field_must_be_string: "%{field} moet een tekenreeks zijn",
  field_must_be_array: "%{field} moet een lijst zijn",
  field_must_be_object: "%{field} moet een object zijn",
  field_must_be_timestamp: "%{field} moet een ISO 8601-tijdstempel met tijdzoneverschil zijn, zoals 2015-07-06T00:00:00-07:00",
  field_must_be_date: "%{field} moet een datum zijn, zoals 2015-07-06",
  field_must_be_one_of: "%{field} moet een van de volgende waarden zijn: %{values}",
  field_too_long: "%{field} is te lang (maximaal %{max} tekens)",
  field_is_invalid: "%{field} is ongeldig",
  field_must_be_at_most: "%{field} moet kleiner dan of gelijk aan %{max} zijn",
  field_must_be_at_least: "%{field} moet groter dan of gelijk aan %{min} zijn",
  // Records
  business_not_found: "Bedrijf niet gevonden",
  location_not_found: "Locatie %{id} niet gevonden",
  // Access
  staff_role_required: "Je medewerkersrol staat deze actie niet toe"
}
