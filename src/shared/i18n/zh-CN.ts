import type { Catalog } from "./en.ts"

export const zhCN: Catalog = {
  // Routing and hosts
  route_not_found: "没有与 %{method} %{path} 匹配的路由",
  method_not_allowed: "%{path} 不允许使用 %{method} 方法",
  unknown_host: "%{host} 上没有对应的商家",
  business_host_required: "此接口仅在商家域名（如 {subdomain}.%{base_domain}）上可用",
  account_host_required: "此接口仅在账户级域名 %{base_domain} 上可用",
  internal_error: "服务器内部出错。该错误已记录，请求 ID 为 %{request_id}。",
  rate_limited: "请求频率超出限制，请在 %{seconds} 秒后重试。",
  // Request decoding
  invalid_json: "请求体不是有效的 JSON",
  invalid_body: "无法读取请求体",
  body_must_be_object: "请求体必须是 JSON 对象",
  body_root_missing: "请求体必须包装在 \"%{root}\" 中",
  field_required: "%{field} 不能为空",
  field_must_be_integer: "%{field} 必须是整数",
  field_must_be_positive_integer: "%{field} 必须是正整数",
  field_must_be_number: "%{field} 必须是数字",
  field_must_be_boolean: "%{field} 必须是 true 或 false",
  field_must_be_string: "%{field} 必须是字符串",
  field_must_be_array: "%{field} 必须是列表",
  field_must_be_object: "%{field} 必须是对象",
  field_must_be_timestamp: "%{field} 必须是带时区偏移的 ISO 8601 时间戳，例如 2015-07-06T00:00:00-07:00",
  field_must_be_date: "%{field} 必须是日期，例如 2015-07-06",
  field_must_be_one_of: "%{field} 必须是以下值之一：%{values}",
  field_too_long: "%{field} 过长（最多 %{max} 个字符）",
  field_is_invalid: "%{field} 无效",
  field_must_be_at_most: "%{field} 必须小于或等于 %{max}",
  field_must_be_at_least: "%{field} 必须大于或等于 %{min}",
  // Records
  business_not_found: "未找到商家",
  location_not_found: "未找到门店 %{id}",
  // Access
  staff_role_required: "您的员工角色无权执行此操作"
}
