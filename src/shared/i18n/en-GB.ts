import type { Catalog } from "./en.ts"

export const enGB: Catalog = {
  // Routing and hosts
  route_not_found: "No route matches %{method} %{path}",
  method_not_allowed: "%{method} is not allowed on %{path}",
  unknown_host: "No business is served at %{host}",
  business_host_required: "This endpoint is only available on a business host such as {subdomain}.%{base_domain}",
  account_host_required: "This endpoint is only available on the account-level host %{base_domain}",
  internal_error: "Something went wrong on our side. The error has been logged with request id %{request_id}.",
  rate_limited: "Rate limit exceeded. Try again in %{seconds} seconds.",
  // Request decoding
  invalid_json: "The request body is not valid JSON",
  invalid_body: "The request body could not be read",
  body_must_be_object: "The request body must be a JSON object",
  body_root_missing: "The request body must be wrapped in \"%{root}\"",
  field_required: "%{field} can't be blank",
  field_must_be_integer: "%{field} must be an integer",
  field_must_be_positive_integer: "%{field} must be a positive integer",
  field_must_be_number: "%{field} must be a number",
  field_must_be_boolean: "%{field} must be true or false",
  field_must_be_string: "%{field} must be a string",
  field_must_be_array: "%{field} must be a list",
  field_must_be_object: "%{field} must be an object",
  field_must_be_timestamp: "%{field} must be an ISO 8601 timestamp with a time zone offset, such as 2015-07-06T00:00:00-07:00",
  field_must_be_date: "%{field} must be a date such as 2015-07-06",
  field_must_be_one_of: "%{field} must be one of: %{values}",
  field_too_long: "%{field} is too long (maximum is %{max} characters)",
  field_is_invalid: "%{field} is invalid",
  field_must_be_at_most: "%{field} must be less than or equal to %{max}",
  field_must_be_at_least: "%{field} must be greater than or equal to %{min}",
  // Records
  business_not_found: "Business not found",
  location_not_found: "Location %{id} not found",
  // Access
  staff_role_required: "Your staff role does not allow this action"
}
