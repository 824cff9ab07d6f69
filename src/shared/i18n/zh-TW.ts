import type { Catalog } from "./en.ts"

export const zhTW: Catalog = {
  // Routing and hosts
  route_not_found: "沒有與 %{method} %{path} 相符的路由",
  method_not_allowed: "%{path} 不允許使用 %{method} 方法",
  unknown_host: "%{host} 上沒有對應的商家",
  business_host_required: "此端點僅能在商家網域（例如 {subdomain}.%{base_domain}）上使用",
  account_host_required: "此端點僅能在帳戶層級網域 %{base_domain} 上使用",
  internal_error: "系統發生錯誤。此錯誤已記錄，請求 ID 為 %{request_id}。",
  rate_limited: "已超過請求頻率限制，請於 %{seconds} 秒後再試。",
  // Request decoding
  invalid_json: "請求內容不是有效的 JSON",
  invalid_body: "無法讀取請求內容",
  body_must_be_object: "請求內容必須是 JSON 物件",
  body_root_missing: "請求內容必須包在 \"%{root}\" 之中",
  field_required: "%{field} 不能為空白",
  field_must_be_integer: "%{field} 必須是整數",
  field_must_be_positive_integer: "%{field} 必須是正整數",
  field_must_be_number: "%{field} 必須是數字",
  field_must_be_boolean: "%{field} 必須是 true 或 false",
  field_must_be_string: "%{field} 必須是字串",
  field_must_be_array: "%{field} 必須是清單",
  field_must_be_object: "%{field} 必須是物件",
  field_must_be_timestamp: "%{field} 必須是含時區偏移的 ISO 8601 時間戳記，例如 2015-07-06T00:00:00-07:00",
  field_must_be_date: "%{field} 必須是日期，例如 2015-07-06",
  field_must_be_one_of: "%{field} 必須是下列值之一：%{values}",
  field_too_long: "%{field} 過長（最多 %{max} 個字元）",
  field_is_invalid: "%{field} 無效",
  field_must_be_at_most: "%{field} 必須小於或等於 %{max}",
  field_must_be_at_least: "%{field} 必須大於或等於 %{min}",
  // Records
  business_not_found: "找不到商家",
  location_not_found: "找不到門市 %{id}",
  // Access
  staff_role_required: "您的員工角色無權執行此操作"
}
