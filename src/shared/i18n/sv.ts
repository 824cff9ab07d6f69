import type { Catalog } from "./en.ts"

export const sv: Catalog = {
  // Routing and hosts
  route_not_found: "Ingen rutt matchar %{method} %{path}",
  method_not_allowed: "%{method} är inte tillåtet för %{path}",
  unknown_host: "Inget företag finns på %{host}",
  business_host_required: "Den här slutpunkten är bara tillgänglig via en företagsvärd, till exempel {subdomain}.%{base_domain}",
  account_host_required: "Den här slutpunkten är bara tillgänglig via kontovärden %{base_domain}",
  internal_error: "Något gick fel hos oss. Felet har loggats med förfrågnings-id %{request_id}.",
  rate_limited: "Gränsen för antal förfrågningar har överskridits. Försök igen om %{seconds} sekunder.",
  // Request decoding
  invalid_json: "Förfrågans innehåll är inte giltig JSON",
  invalid_body: "Förfrågans innehåll kunde inte läsas",
  body_must_be_object: "Förfrågans innehåll måste vara ett JSON-objekt",
  body_root_missing: "Förfrågans innehåll måste vara omslutet av \"%{root}\"",
  field_required: "%{field} måste anges",
  field_must_be_integer: "%{field} måste vara ett heltal",
  field_must_be_positive_integer: "%{field} måste vara ett positivt heltal",
  field_must_be_number: "%{field} måste vara ett tal",
  field_must_be_boolean: "%{field} måste vara true eller false",
  field_must_be_string: "%{field} måste vara en sträng",
  field_must_be_array: "%{field} måste vara en lista",
  field_must_be_object: "%{field} måste vara ett objekt",
  field_must_be_timestamp: "%{field} måste vara en ISO 8601-tidsstämpel med tidszonsförskjutning, till exempel 2015-07-06T00:00:00-07:00",
  field_must_be_date: "%{field} måste vara ett datum, till exempel 2015-07-06",
  field_must_be_one_of: "%{field} måste vara något av: %{values}",
  field_too_long: "%{field} är för lång (högst %{max} tecken)",
  field_is_invalid: "%{field} har ett ogiltigt värde",
  field_must_be_at_most: "%{field} måste vara mindre än eller lika med %{max}",
  field_must_be_at_least: "%{field} måste vara större än eller lika med %{min}",
  // Records
  business_not_found: "Företaget hittades inte",
  location_not_found: "Platsen %{id} hittades inte",
  // Access
  staff_role_required: "Din personalroll tillåter inte den här åtgärden"
}
