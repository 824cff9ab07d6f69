import type { Catalog } from "./en.ts"

export const ruRU: Catalog = {
  // Routing and hosts
  route_not_found: "Маршрут для %{method} %{path} не найден",
  method_not_allowed: "Метод %{method} не разрешён для %{path}",
  unknown_host: "Компания для хоста %{host} не найдена",
  business_host_required: "Этот эндпоинт доступен только на хосте компании, например {subdomain}.%{base_domain}",
  account_host_required: "Этот эндпоинт доступен только на хосте уровня аккаунта %{base_domain}",
  internal_error: "На нашей стороне произошла ошибка. Она зарегистрирована с идентификатором запроса %{request_id}.",
  rate_limited: "Превышен лимит запросов. Повторите попытку через %{seconds} с.",
  // Request decoding
  invalid_json: "Тело запроса не является корректным JSON",
  invalid_body: "Не удалось прочитать тело запроса",
  body_must_be_object: "Тело запроса должно быть JSON-объектом",
  body_root_missing: "Тело запроса должно быть обёрнуто в \"%{root}\"",
  field_required: "Поле %{field} не может быть пустым",
  field_must_be_integer: "Поле %{field} должно быть целым числом",
  field_must_be_positive_integer: "Поле %{field} должно быть положительным целым числом",
  field_must_be_number: "Поле %{field} должно быть числом",
  field_must_be_boolean: "Поле %{field} должно иметь значение true или false",
  field_must_be_string: "Поле %{field} должно быть строкой",
  field_must_be_array: "Поле %{field} должно быть списком",
  field_must_be_object: "Поле %{field} должно быть объектом",
  field_must_be_timestamp: "Поле %{field} должно быть меткой времени ISO 8601 со смещением часового пояса, например 2015-07-06T00:00:00-07:00",
  field_must_be_date: "Поле %{field} должно быть датой, например 2015-07-06",
  field_must_be_one_of: "Поле %{field} должно иметь одно из значений: %{values}",
  field_too_long: "Поле %{field} слишком длинное (максимум символов: %{max})",
  field_is_invalid: "Поле %{field} имеет недопустимое значение",
  field_must_be_at_most: "Поле %{field} должно быть не больше %{max}",
  field_must_be_at_least: "Поле %{field} должно быть не меньше %{min}",
  // Records
  business_not_found: "Компания не найдена",
  location_not_found: "Филиал %{id} не найден",
  // Access
  staff_role_required: "Ваша роль сотрудника не позволяет выполнить это действие"
}
