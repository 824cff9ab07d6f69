import type { Catalog } from "./en.ts"

export const esES: Catalog = {
  // Routing and hosts
  route_not_found: "Ninguna ruta coincide con %{method} %{path}",
  method_not_allowed: "%{method} no está permitido en %{path}",
  unknown_host: "No hay ningún negocio disponible en %{host}",
  business_host_required: "Este endpoint solo está disponible en un host de negocio, como {subdomain}.%{base_domain}",
  account_host_required: "Este endpoint solo está disponible en el host de cuenta %{base_domain}",
  internal_error: "Se ha producido un error por nuestra parte. El error se ha registrado con el ID de solicitud %{request_id}.",
  rate_limited: "Se ha superado el límite de solicitudes. Vuelve a intentarlo dentro de %{seconds} segundos.",
  // Request decoding
  invalid_json: "El cuerpo de la solicitud no es un JSON válido",
  invalid_body: "No se ha podido leer el cuerpo de la solicitud",
  body_must_be_object: "El cuerpo de la solicitud debe ser un objeto JSON",
  body_root_missing: "El cuerpo de la solicitud debe estar envuelto en \"%{root}\"",
  field_required: "%{field} no puede estar en blanco",
  field_must_be_integer: "%{field} debe ser un número entero",
  field_must_be_positive_integer: "%{field} debe ser un número entero positivo",
  field_must_be_number: "%{field} debe ser un número",
  field_must_be_boolean: "%{field} debe ser true o false",
  field_must_be_string: "%{field} debe ser una cadena de texto",
  field_must_be_array: "%{field} debe ser una lista",
  field_must_be_object: "%{field} debe ser un objeto",
  field_must_be_timestamp: "%{field} debe ser una marca de tiempo ISO 8601 con desfase de zona horaria, como 2015-07-06T00:00:00-07:00",
  field_must_be_date: "%{field} debe ser una fecha, como 2015-07-06",
  field_must_be_one_of: "%{field} debe ser uno de los siguientes valores: %{values}",
  field_too_long: "%{field} es demasiado largo (el máximo es de %{max} caracteres)",
  field_is_invalid: "%{field} no es válido",
  field_must_be_at_most: "%{field} debe ser menor o igual que %{max}",
  field_must_be_at_least: "%{field} debe ser mayor o igual que %{min}",
  // Records
  business_not_found: "No se ha encontrado el negocio",
  location_not_found: "No se ha encontrado la ubicación %{id}",
  // Access
  staff_role_required: "Tu rol de personal no permite realizar esta acción"
}
