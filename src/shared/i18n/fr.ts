import type { Catalog } from "./en.ts"

export const fr: Catalog = {
  // Routing and hosts
  route_not_found: "Aucune route ne correspond à %{method} %{path}",
  method_not_allowed: "%{method} n'est pas autorisé sur %{path}",
  unknown_host: "Aucune entreprise n'est associée à %{host}",
  business_host_required: "Ce point de terminaison n'est disponible que sur un hôte d'entreprise, par exemple {subdomain}.%{base_domain}",
  account_host_required: "Ce point de terminaison n'est disponible que sur l'hôte de niveau compte %{base_domain}",
  internal_error: "Une erreur s'est produite de notre côté. Elle a été consignée avec l'identifiant de requête %{request_id}.",
  rate_limited: "Limite de requêtes dépassée. Réessayez dans %{seconds} secondes.",
  // Request decoding
  invalid_json: "Le corps de la requête n'est pas un JSON valide",
  invalid_body: "Le corps de la requête n'a pas pu être lu",
  body_must_be_object: "Le corps de la requête doit être un objet JSON",
  body_root_missing: "Le corps de la requête doit être encapsulé dans \"%{root}\"",
  field_required: "%{field} doit être rempli(e)",
  field_must_be_integer: "%{field} doit être un nombre entier",
  field_must_be_positive_integer: "%{field} doit être un nombre entier positif",
  field_must_be_number: "%{field} doit être un nombre",
  field_must_be_boolean: "%{field} doit valoir true ou false",
  field_must_be_string: "%{field} doit être une chaîne de caractères",
  field_must_be_array: "%{field} doit être une liste",
  field_must_be_object: "%{field} doit être un objet",
  field_must_be_timestamp: "%{field} doit être un horodatage ISO 8601 avec décalage de fuseau horaire, par exemple 2015-07-06T00:00:00-07:00",
  field_must_be_date: "%{field} doit être une date, par exemple 2015-07-06",
  field_must_be_one_of: "%{field} doit avoir l'une des valeurs suivantes : %{values}",
  field_too_long: "%{field} est trop long (%{max} caractères maximum)",
  field_is_invalid: "%{field} n'est pas valide",
  field_must_be_at_most: "%{field} doit être inférieur ou égal à %{max}",
  field_must_be_at_least: "%{field} doit être supérieur ou égal à %{min}",
  // Records
  business_not_found: "Entreprise introuvable",
  location_not_found: "Établissement %{id} introuvable",
  // Access
  staff_role_required: "Votre rôle au sein de l'équipe ne permet pas d'effectuer cette action"
}
