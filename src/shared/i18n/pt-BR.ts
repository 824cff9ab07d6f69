import type { Catalog } from "./en.ts"

export const ptBR: Catalog = {
  // Routing and hosts
  route_not_found: "Nenhuma rota corresponde a %{method} %{path}",
  method_not_allowed: "%{method} não é permitido em %{path}",
  unknown_host: "Nenhuma empresa encontrada em %{host}",
  business_host_required: "Este endpoint só está disponível em um host de empresa, como {subdomain}.%{base_domain}",
  account_host_required: "Este endpoint só está disponível no host da conta %{base_domain}",
  internal_error: "Algo deu errado do nosso lado. O erro foi registrado com o ID de requisição %{request_id}.",
  rate_limited: "Limite de requisições excedido. Tente novamente em %{seconds} segundos.",
  // Request decoding
  invalid_json: "O corpo da requisição não é um JSON válido",
  invalid_body: "Não foi possível ler o corpo da requisição",
  body_must_be_object: "O corpo da requisição deve ser um objeto JSON",
  body_root_missing: "O corpo da requisição deve estar envolvido em \"%{root}\"",
  field_required: "%{field} não pode ficar em branco",
  field_must_be_integer: "%{field} deve ser um número inteiro",
  field_must_be_positive_integer: "%{field} deve ser um número inteiro positivo",
  field_must_be_number: "%{field} deve ser um número",
  field_must_be_boolean: "%{field} deve ser true ou false",
  field_must_be_string: "%{field} deve ser uma string",
  field_must_be_array: "%{field} deve ser uma lista",
  field_must_be_object: "%{field} deve ser um objeto",
  field_must_be_timestamp: "%{field} deve ser uma data e hora no formato ISO 8601 com deslocamento de fuso horário, como 2015-07-06T00:00:00-07:00",
  field_must_be_date: "%{field} deve ser uma data, como 2015-07-06",
  field_must_be_one_of: "%{field} deve ser um dos seguintes valores: %{values}",
  field_too_long: "%{field} é muito longo (máximo de %{max} caracteres)",
  field_is_invalid: "%{field} é inválido",
  field_must_be_at_most: "%{field} deve ser menor ou igual a %{max}",
  field_must_be_at_least: "%{field} deve ser maior ou igual a %{min}",
  // Records
  business_not_found: "Empresa não encontrada",
  location_not_found: "Unidade %{id} não encontrada",
  // Access
  staff_role_required: "Sua função na equipe não permite esta ação"
}
