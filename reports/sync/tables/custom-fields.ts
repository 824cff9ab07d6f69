import { readWhole } from "./change-scope.ts"
import type { StoreTable } from "./types.ts"

/**
 * Custom fields in the store: their definitions (what a report's `custom_fields` expands to)
 * and a person's values as one JSON object text, for the clients and staff_members rows.
 */

/**
 * A text as the inside of a JSON string, in SQL that PostgreSQL (the incremental refresh) and
 * DuckDB (the full rebuild) both run: backslash, quote and the common control characters
 * escaped. A value with another control character makes the object invalid JSON, which the
 * catalog reads as NULL (json_valid), never as an error.
 */
const jsonEscaped = (text: string) =>
  `replace(replace(replace(replace(replace(${text}, '\\', '\\\\'), '"', '\\"'), chr(10), '\\n'), chr(13), '\\r'), chr(9), '\\t')`

/**
 * A person's custom field values as one JSON object text, {"<custom field id>": value}: the
 * text, true/false, or a select field's option texts joined by ", " (the Core API's values);
 * null without any. `person` is the alias of the person's `people` row.
 */
export const customFieldValuesSql = (person: string) => `(select '{' || string_agg('"' || cast(v.custom_field_id as varchar) || '":' ||
                case f.data_type
                  when 'boolean' then case when v.boolean_value then 'true' when not v.boolean_value then 'false' else 'null' end
                  when 'select' then coalesce('"' || ${jsonEscaped(`(select string_agg(o.value, ', ' order by o.position, o.id)
                                               from person_custom_field_selections cs
                                               join custom_field_options o on o.business_id = cs.business_id and o.id = cs.custom_field_option_id
                                               where cs.business_id = v.business_id and cs.person_id = v.person_id
                                                 and cs.custom_field_id = v.custom_field_id)`)} || '"', 'null')
                  else coalesce('"' || ${jsonEscaped("v.text_value")} || '"', 'null') end, ',' order by v.custom_field_id) || '}'
         from person_custom_field_values v
         join custom_fields f on f.business_id = v.business_id and f.id = v.custom_field_id
        where v.business_id = ${person}.business_id and v.person_id = ${person}.id)`

/** Custom field definitions: what `custom_fields` expands to. */
export const customFieldsTable: StoreTable = {
  name: "custom_fields",
  changes: readWhole(false),
  columns: [
    ["business_id", "BIGINT NOT NULL"],
    ["id", "BIGINT NOT NULL"],
    ["name", "VARCHAR NOT NULL"],
    ["data_type", "VARCHAR NOT NULL"],
    ["position", "INTEGER NOT NULL"]
  ],
  select: (where) => `select business_id, id, name, data_type, position from custom_fields where ${where}`
}
