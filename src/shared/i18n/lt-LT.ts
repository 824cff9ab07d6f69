import type { Catalog } from "./en.ts"

export const ltLT: Catalog = {
  // Routing and hosts
  route_not_found: "Maršrutas %{method} %{path} nerastas",
  method_not_allowed: "Metodas %{method} neleidžiamas adresu %{path}",
  unknown_host: "Įmonė adresu %{host} nerasta",
  business_host_required: "Šis galinis taškas pasiekiamas tik įmonės domene, pvz., {subdomain}.%{base_domain}",
  account_host_required: "Šis galinis taškas pasiekiamas tik paskyros lygio domene %{base_domain}",
  internal_error: "Mūsų pusėje įvyko klaida. Ji užregistruota su užklausos ID %{request_id}.",
  rate_limited: "Viršytas užklausų limitas. Bandykite dar kartą po %{seconds} s.",
  // Request decoding
  invalid_json: "Užklausos turinys nėra tinkamas JSON",
  invalid_body: "Nepavyko perskaityti užklausos turinio",
  body_must_be_object: "Užklausos turinys turi būti JSON objektas",
  body_root_missing: "Užklausos turinys turi būti įdėtas į \"%{root}\"",
  field_required: "Laukas %{field} negali būti tuščias",
  field_must_be_integer: "Laukas %{field} turi būti sveikasis skaičius",
  field_must_be_positive_integer: "Laukas %{field} turi būti teigiamas sveikasis skaičius",
  field_must_be_number: "Laukas %{field} turi būti skaičius",
  field_must_be_boolean: "Laukas %{field} turi būti true arba false",
  field_must_be_string: "Laukas %{field} turi būti eilutė",
  field_must_be_array: "Laukas %{field} turi būti sąrašas",
  field_must_be_object: "Laukas %{field} turi būti objektas",
  field_must_be_timestamp: "Laukas %{field} turi būti ISO 8601 laiko žymė su laiko juostos poslinkiu, pvz., 2015-07-06T00:00:00-07:00",
  field_must_be_date: "Laukas %{field} turi būti data, pvz., 2015-07-06",
  field_must_be_one_of: "Laukas %{field} turi būti viena iš reikšmių: %{values}",
  field_too_long: "Laukas %{field} per ilgas (daugiausia %{max} simb.)",
  field_is_invalid: "Lauko %{field} reikšmė neteisinga",
  field_must_be_at_most: "Lauko %{field} reikšmė turi būti ne didesnė nei %{max}",
  field_must_be_at_least: "Lauko %{field} reikšmė turi būti ne mažesnė nei %{min}",
  // Records
  business_not_found: "Įmonė nerasta",
  location_not_found: "Vieta %{id} nerasta",
  // Access
  staff_role_required: "Jūsų darbuotojo vaidmuo neleidžia atlikti šio veiksmo"
}
