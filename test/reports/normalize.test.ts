import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { clientsCatalog } from "../../reports/catalog/clients.ts"
import type { CatalogContext } from "../../reports/catalog/types.ts"
import { QueryAttributes, QueryDocument } from "../../reports/grammar.ts"
import { normalize } from "../../reports/normalize.ts"
import { t } from "../../src/shared/i18n.ts"
import { NO_CUSTOM_FIELDS } from "./support.ts"

/** Malformed queries: every problem named, in one answer, before any SQL exists. */

const problems = (attributes: unknown, context: CatalogContext = NO_CUSTOM_FIELDS) => {
  const result = normalize(Schema.decodeUnknownSync(QueryAttributes)(attributes), clientsCatalog, context)
  return result._tag === "Invalid" ? result.problems.map((p) => t("en", p.key, p.params)) : []
}

const CUSTOM: CatalogContext = {
  customFields: [
    { id: 11, name: "Shirt size", data_type: "select" },
    { id: 12, name: "Newsletter", data_type: "boolean" }
  ],
  franchiseHolding: false
}

describe("names", () => {
  it("refuse unknown fields, groups, sorts and filter fields, naming each", () => {
    expect(problems({ fields: ["first_name", "nope"] })).toEqual(['Unknown field "nope" for clients'])
    expect(problems({ fields: ["total_count"], group: "nope" })).toEqual(['Unknown group "nope" for clients'])
    expect(problems({ fields: ["key"], sort: ["nope+"] })).toEqual(['Cannot sort by "nope": not a field of this query'])
    expect(problems({ fields: ["key"], filter: ["eq", "nope", 1] })).toEqual(['filter: unknown field "nope"'])
    expect(problems({ fields: [] })).toEqual(["fields must name at least one field"])
  })

  it("report every problem at once", () => {
    expect(problems({ fields: ["a", "b"], sort: ["c-"], filter: ["and", [["eq", "d", 1], ["zz", "e"]]], page: { limit: 0 } })).toEqual([
      'Unknown field "a" for clients',
      'Unknown field "b" for clients',
      'filter[1][1]: unknown filter operation "zz"',
      'Cannot sort by "c": not a field of this query',
      "page.limit must be between 1 and 500"
    ])
  })

  it("keep detail fields out of grouped queries and summary fields out of detail ones", () => {
    expect(problems({ fields: ["first_name", "total_count"], group: "person_state" })).toEqual([
      '"first_name" is a detail field: it cannot be requested with a group'
    ])
    expect(problems({ fields: ["custom_fields"], group: "person_state" })).toEqual([
      '"custom_fields" is a detail field: it cannot be requested with a group'
    ])
    expect(problems({ fields: ["person_count"] })).toEqual(['"person_count" is a summary field: it needs a group'])
    expect(problems({ fields: ["client_since_month_start_date"] })).toEqual(['Unknown field "client_since_month_start_date" for clients'])
    expect(problems({ fields: ["total_count"], group: "person_state", sort: ["first_name+"] })).toEqual([
      'Cannot sort by "first_name": not a field of this query'
    ])
    expect(problems({ fields: ["key"], sort: ["total_count-"] })).toEqual(['Cannot sort by "total_count": not a field of this query'])
  })

  it("treat injection attempts in names as unknown names", () => {
    expect(problems({ fields: ["first_name; DROP TABLE clients"] })).toEqual(['Unknown field "first_name; DROP TABLE clients" for clients'])
    expect(problems({ fields: ["key"], filter: ["eq", "r.first_name) OR (1=1", "x"] })).toEqual([
      'filter: unknown field "r.first_name) OR (1=1"'
    ])
    expect(problems({ fields: ["total_count"], group: "person_state UNION SELECT 1" })).toEqual([
      'Unknown group "person_state UNION SELECT 1" for clients'
    ])
    expect(problems({ fields: ["key"], sort: ["key; --"] })).toEqual(['Invalid sort "key; --": use a field name followed by + or -'])
  })
})

describe("filters", () => {
  it("refuse unknown operations and wrong arities", () => {
    expect(problems({ fields: ["key"], filter: ["like", "email", "x"] })).toEqual(['filter: unknown filter operation "like"'])
    expect(problems({ fields: ["key"], filter: ["eq", "email"] })).toEqual(['filter: "eq" takes a field name and a value'])
    expect(problems({ fields: ["key"], filter: ["eq", "email", "a", "b"] })).toEqual(['filter: "eq" takes a field name and a value'])
    expect(problems({ fields: ["key"], filter: ["emp", "email", "x"] })).toEqual(['filter: "emp" takes a field name'])
    expect(problems({ fields: ["key"], filter: ["btw", "age", 1] })).toEqual([
      "filter: btw takes a field name and two values, or a field name and a list of two values"
    ])
    expect(problems({ fields: ["key"], filter: ["btw", "age", [1, 2, 3]] })).toHaveLength(1)
    expect(problems({ fields: ["key"], filter: ["and", ["eq", "age", 1]] })).toEqual(['filter: "and" takes one list of filters'])
    expect(problems({ fields: ["key"], filter: ["and", [["eq", "age", 1], "x"]] })).toEqual([
      "filter[1][1] must be a list: an operation followed by its arguments"
    ])
    expect(problems({ fields: ["key"], filter: ["or"] })).toEqual(['filter: "or" takes one list of filters'])
    expect(problems({ fields: ["key"], filter: [1, 2] })).toEqual(["filter must be a list: an operation followed by its arguments"])
    expect(problems({ fields: ["key"], filter: ["eq", "email", { $ne: 1 }] })).toEqual(['filter: "eq" takes a field name and a value'])
  })

  it("check values against the field's type and enum", () => {
    expect(problems({ fields: ["key"], filter: ["eq", "age", "old"] })).toEqual(['filter: "old" is not a valid integer value for "age"'])
    expect(problems({ fields: ["key"], filter: ["gt", "birthdate", "2024-02-30"] })).toEqual([
      'filter: "2024-02-30" is not a valid date value for "birthdate"'
    ])
    expect(problems({ fields: ["key"], filter: ["eq", "also_staff", "maybe"] })).toEqual([
      'filter: "maybe" is not a valid boolean value for "also_staff"'
    ])
    expect(problems({ fields: ["key"], filter: ["eq", "email", null] })).toEqual(['filter: null is not a valid string value for "email"'])
    expect(problems({ fields: ["key"], filter: ["eq", "person_state", "gone"] })).toEqual([
      'filter: "gone" is not a value of "person_state" (active, deleted, hidden)'
    ])
    expect(problems({ fields: ["key"], filter: ["contains", "person_state", "act"] })).toEqual([])
  })

  it("refuse operations that do not apply to the field's type", () => {
    expect(problems({ fields: ["key"], filter: ["contains", "age", "1"] })).toEqual([
      'filter: contains does not apply to the integer field "age"'
    ])
    expect(problems({ fields: ["key"], filter: ["gt", "also_staff", true] })).toEqual([
      'filter: gt does not apply to the boolean field "also_staff"'
    ])
  })

  it("refuse filters nested absurdly deep", () => {
    let filter: unknown = ["eq", "age", 1]
    for (let i = 0; i < 40; i++) filter = ["and", [filter]]
    expect(problems({ fields: ["key"], filter })).toEqual(["The filter is too large: at most 16 levels or conditions"])
  })
})

describe("sort and page", () => {
  it("accept + and - as suffix or prefix, and no sign as ascending", () => {
    expect(problems({ fields: ["key"], sort: ["last_name+", "-first_name", "age", "email-"] })).toEqual([])
    expect(problems({ fields: ["key"], sort: ["+last_name-"] })).toEqual(['Invalid sort "+last_name-": use a field name followed by + or -'])
  })

  it("bound page.limit and starting_after", () => {
    expect(problems({ fields: ["key"], page: { limit: 501 } })).toEqual(["page.limit must be between 1 and 500"])
    expect(problems({ fields: ["key"], page: { limit: 500 } })).toEqual([])
    expect(problems({ fields: ["key"], page: { starting_after: "x".repeat(256) } })).toEqual([
      "page.starting_after must be a key of at most 255 characters"
    ])
    expect(problems({ fields: ["key"], page: { starting_after: "" } })).toHaveLength(1)
  })
})

describe("logical fields", () => {
  it("expand custom_fields to one typed field per custom field", () => {
    const result = normalize(Schema.decodeUnknownSync(QueryAttributes)({ fields: ["first_name", "custom_fields"] }), clientsCatalog, CUSTOM)
    expect(result._tag === "Ok" && result.query.fields).toEqual([
      { name: "first_name", type: "string" },
      { name: "custom_field_11", type: "string", label: "Shirt size" },
      { name: "custom_field_12", type: "boolean", label: "Newsletter" }
    ])
    expect(problems({ fields: ["custom_field_12"], filter: ["eq", "custom_field_12", "t"], sort: ["custom_field_11-"] }, CUSTOM)).toEqual([])
    expect(problems({ fields: ["custom_field_13"] }, CUSTOM)).toEqual([
      // "Did you mean" offers the business's instances and the logical field.
      'Unknown field "custom_field_13" for clients: did you mean `custom_field_11`, `custom_field_12`, `custom_fields`?'
    ])
  })

  it("refuse custom_fields for a franchise holding", () => {
    expect(problems({ fields: ["custom_fields"] }, { ...CUSTOM, franchiseHolding: true })).toEqual([
      "custom_fields is not supported for a franchise holding"
    ])
  })
})

describe("the request document", () => {
  it("decodes the JSON:API document, null members as absent, t/f and digit strings", () => {
    const decoded = Schema.decodeUnknownSync(QueryDocument)({
      data: {
        type: "queries",
        attributes: { fields: ["key"], filter: null, group: null, page: { limit: "20", starting_after: null }, sort: null, total_count: "t" }
      }
    })
    expect(decoded.data.attributes).toMatchObject({ page: { limit: 20 }, total_count: true })
  })

  it("refuses another type and a missing fields list", () => {
    expect(() => Schema.decodeUnknownSync(QueryDocument)({ data: { type: "people", attributes: { fields: ["key"] } } })).toThrow()
    expect(() => Schema.decodeUnknownSync(QueryDocument)({ data: { type: "queries", attributes: {} } })).toThrow()
  })
})
