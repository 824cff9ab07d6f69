import type { Catalog } from "./en.ts"

export const de: Catalog = {
  // Routing and hosts
  route_not_found: "Keine Route für %{method} %{path}",
  method_not_allowed: "%{method} ist für %{path} nicht zulässig",
  unknown_host: "Unter %{host} ist kein Unternehmen erreichbar",
  business_host_required: "Dieser Endpunkt ist nur über einen Unternehmens-Host wie {subdomain}.%{base_domain} verfügbar",
  account_host_required: "Dieser Endpunkt ist nur über den Konto-Host %{base_domain} verfügbar",
  internal_error: "Bei uns ist ein Fehler aufgetreten. Der Fehler wurde mit der Anfrage-ID %{request_id} protokolliert.",
  rate_limited: "Anfragelimit überschritten. Bitte versuchen Sie es in %{seconds} Sekunden erneut.",
  // Request decoding
  invalid_json: "Der Anfragetext ist kein gültiges JSON",
  invalid_body: "Der Anfragetext konnte nicht gelesen werden",
  body_must_be_object: "Der Anfragetext muss ein JSON-Objekt sein",
  body_root_missing: "Der Anfragetext muss in \"%{root}\" eingeschlossen sein",
  field_required: "%{field} muss ausgefüllt werden",
  field_must_be_integer: "%{field} muss eine ganze Zahl sein",
  field_must_be_positive_integer: "%{field} muss eine positive ganze Zahl sein",
  field_must_be_number: "%{field} muss eine Zahl sein",
  field_must_be_boolean: "%{field} muss true oder false sein",
  field_must_be_string: "%{field} muss eine Zeichenkette sein",
  field_must_be_array: "%{field} muss eine Liste sein",
  field_must_be_object: "%{field} muss ein Objekt sein",
  field_must_be_timestamp: "%{field} muss ein ISO-8601-Zeitstempel mit Zeitzonenversatz sein, z. B. 2015-07-06T00:00:00-07:00",
  field_must_be_date: "%{field} muss ein Datum sein, z. B. 2015-07-06",
  field_must_be_one_of: "%{field} muss einer der folgenden Werte sein: %{values}",
  field_too_long: "%{field} ist zu lang (maximal %{max} Zeichen)",
  field_is_invalid: "%{field} ist ungültig",
  field_must_be_at_most: "%{field} muss kleiner oder gleich %{max} sein",
  field_must_be_at_least: "%{field} muss größer oder gleich %{min} sein",
  // Records
  business_not_found: "Unternehmen nicht gefunden",
  location_not_found: "Standort %{id} nicht gefunden",
  // Access
  staff_role_required: "Ihre Mitarbeiterrolle erlaubt diese Aktion nicht"
}
