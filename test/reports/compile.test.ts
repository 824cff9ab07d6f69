import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { clientsCatalog } from "../../reports/catalog/clients.ts"
import { compile } from "../../reports/compile.ts"
import { compileFilterOnly } from "../../reports/compile-filter.ts"
import { QueryAttributes } from "../../reports/grammar.ts"
import { normalize } from "../../reports/normalize.ts"
import { NOW, NO_CUSTOM_FIELDS } from "./support.ts"

/**
 * Golden `{sql, params}`: what each operation and combinator compiles to, and the shape of
 * detail and summary queries with their pagination. Identifiers come from the catalog,
 * values only as `$pN` parameters.
 */

const normalized = (attributes: unknown) => {
  const result = normalize(Schema.decodeUnknownSync(QueryAttributes)(attributes), clientsCatalog, NO_CUSTOM_FIELDS)
  if (result._tag === "Invalid") throw new Error(JSON.stringify(result.problems))
  return result.query
}

const where = (filter: unknown) => {
  const query = normalized({ fields: ["key"], filter })
  return compileFilterOnly(query.filter!, NOW)
}

describe("operations", () => {
  it("eq", () => {
    expect(where(["eq", "first_name", "Ann"])).toEqual({
      sql: "(lower(r.first_name) = lower(CAST($p1 AS VARCHAR)))",
      params: { p1: "Ann" }
    })
    expect(where(["eq", "completed_visits", 3])).toEqual({
      sql: "(r.completed_visits = CAST($p1 AS BIGINT))",
      params: { p1: 3 }
    })
    expect(where(["eq", "also_staff", "t"])).toEqual({
      sql: "(r.also_staff = CAST($p1 AS BOOLEAN))",
      params: { p1: true }
    })
    expect(where(["eq", "birthdate", "2000-02-29"]).sql).toBe("(r.birthdate = CAST($p1 AS DATE))")
  })

  it("ne and its alias neq", () => {
    const expected = {
      sql: "(r.email IS NULL OR lower(r.email) <> lower(CAST($p1 AS VARCHAR)))",
      params: { p1: "a@b.test" }
    }
    expect(where(["ne", "email", "a@b.test"])).toEqual(expected)
    expect(where(["neq", "email", "a@b.test"])).toEqual(expected)
    expect(where(["ne", "net_paid_amount", 0]).sql).toBe("(r.net_paid_amount IS NULL OR r.net_paid_amount <> CAST($p1 AS BIGINT))")
  })

  it("gt and lt", () => {
    expect(where(["gt", "client_since_date", "2024-01-01"])).toEqual({
      sql: "(r.client_since_date > CAST($p1 AS DATE))",
      params: { p1: "2024-01-01" }
    })
    expect(where(["lt", "age", "30"])).toEqual({
      sql: "(date_sub('year', r.birthdate, r.today) < CAST($p1 AS BIGINT))",
      params: { p1: 30 }
    })
    expect(where(["lt", "last_name", "M"]).sql).toBe("(lower(r.last_name) < lower(CAST($p1 AS VARCHAR)))")
  })

  it("btw, in both forms", () => {
    const expected = {
      sql: "(r.completed_visits BETWEEN CAST($p1 AS BIGINT) AND CAST($p2 AS BIGINT))",
      params: { p1: 1, p2: 5 }
    }
    expect(where(["btw", "completed_visits", 1, 5])).toEqual(expected)
    expect(where(["btw", "completed_visits", [1, 5]])).toEqual(expected)
    expect(where(["btw", "last_name", "a", "m"]).sql).toBe(
      "(lower(r.last_name) BETWEEN lower(CAST($p1 AS VARCHAR)) AND lower(CAST($p2 AS VARCHAR)))"
    )
  })

  it("contains, wo, starts, ends", () => {
    const params = { p1: "Ex%" }
    expect(where(["contains", "email", "Ex%"])).toEqual({ sql: "contains(lower(r.email), lower(CAST($p1 AS VARCHAR)))", params })
    expect(where(["wo", "email", "Ex%"])).toEqual({
      sql: "(r.email IS NULL OR NOT contains(lower(r.email), lower(CAST($p1 AS VARCHAR))))",
      params
    })
    expect(where(["starts", "email", "Ex%"])).toEqual({ sql: "starts_with(lower(r.email), lower(CAST($p1 AS VARCHAR)))", params })
    expect(where(["ends", "email", "Ex%"])).toEqual({ sql: "ends_with(lower(r.email), lower(CAST($p1 AS VARCHAR)))", params })
  })

  it("emp and nemp", () => {
    const params = {}
    expect(where(["emp", "email"])).toEqual({ sql: "(r.email IS NULL OR r.email = '')", params })
    expect(where(["nemp", "email"])).toEqual({ sql: "(r.email IS NOT NULL AND r.email <> '')", params })
    expect(where(["emp", "birthdate"])).toEqual({ sql: "(r.birthdate IS NULL)", params })
    expect(where(["nemp", "birthdate"])).toEqual({ sql: "(r.birthdate IS NOT NULL)", params })
  })
})

describe("combinators", () => {
  it("and, or, nested, empty, and the top-level list", () => {
    expect(where(["and", [["eq", "first_name", "a"], ["or", [["gt", "age", 18], ["emp", "birthdate"]]]]])).toEqual({
      sql:
        "((lower(r.first_name) = lower(CAST($p1 AS VARCHAR))) AND " +
        "((date_sub('year', r.birthdate, r.today) > CAST($p2 AS BIGINT)) OR (r.birthdate IS NULL)))",
      params: { p1: "a", p2: 18 }
    })
    // A closed enum is compared as stored (its values are lower case), the given value lower-cased.
    expect(where(["or", [["eq", "person_state", "Active"], ["ne", "person_state", "hidden"]]])).toEqual({
      sql: "((r.person_state = CAST($p1 AS VARCHAR)) OR (r.person_state IS NULL OR r.person_state <> CAST($p2 AS VARCHAR)))",
      params: { p1: "active", p2: "hidden" }
    })
    expect(where(["and", []]).sql).toBe("TRUE")
    expect(where(["or", []]).sql).toBe("FALSE")
    expect(where([["eq", "first_name", "a"], ["nemp", "email"]]).sql).toBe(
      "((lower(r.first_name) = lower(CAST($p1 AS VARCHAR))) AND (r.email IS NOT NULL AND r.email <> ''))"
    )
  })

  it("keep injection attempts out of the text", () => {
    const compiled = where(["eq", "first_name", "x') OR 1=1 --"])
    expect(compiled.sql).not.toContain("OR 1=1")
    expect(compiled.params.p1).toBe("x') OR 1=1 --")
  })
})

const SOURCE = "(SELECT c.*, CAST(timezone(c.time_zone, CAST($now AS TIMESTAMPTZ)) AS DATE) AS today FROM clients c)"

describe("query shapes", () => {
  it("a detail query: scope, filter, sort, key tie-breakers, limit + 1", () => {
    const compiled = compile(normalized({ fields: ["first_name", "age"], filter: ["eq", "also_staff", true], sort: ["last_name-"] }), {
      scope: [7, 9],
      now: NOW
    })
    expect(compiled.page).toEqual({
      sql:
        "WITH q AS (SELECT r.first_name AS c0, date_sub('year', r.birthdate, r.today) AS c1, r.key AS key, " +
        "lower(r.last_name) AS s0, r.business_id AS k0, r.person_id AS k1 " +
        `FROM ${SOURCE} r WHERE r.business_id IN (CAST($p1 AS BIGINT), CAST($p2 AS BIGINT)) AND (r.also_staff = CAST($p3 AS BOOLEAN))) ` +
        "SELECT q.c0, q.c1, q.key FROM q ORDER BY q.s0 DESC NULLS LAST, q.k0 ASC, q.k1 ASC LIMIT CAST($p4 AS BIGINT)",
      params: { now: "2024-06-15T12:00:00.000Z", p1: 7, p2: 9, p3: true, p4: 101 }
    })
    expect(compiled.count).toBeUndefined()
    expect(compiled.anchorExists).toBeUndefined()
  })

  it("a detail page after a key: the anchor row's sort values, then rows strictly after them", () => {
    const compiled = compile(
      normalized({ fields: ["key"], sort: ["home_location_name+"], page: { limit: 10, starting_after: "7-3" }, total_count: true }),
      { scope: [7], now: NOW }
    )
    expect(compiled.page).toEqual({
      sql:
        "WITH q AS (SELECT r.key AS c0, r.key AS key, lower(r.home_location_name) AS s0, r.business_id AS k0, r.person_id AS k1 " +
        `FROM ${SOURCE} r WHERE r.business_id IN (CAST($p1 AS BIGINT))), ` +
        "a AS (SELECT lower(r.home_location_name) AS s0, r.business_id AS k0, r.person_id AS k1 " +
        `FROM ${SOURCE} r WHERE r.business_id IN (CAST($p2 AS BIGINT)) AND r.key = CAST($p3 AS VARCHAR)) ` +
        "SELECT q.c0, q.key FROM q, a WHERE ((a.s0 IS NOT NULL AND (q.s0 IS NULL OR q.s0 > a.s0)) OR " +
        "(q.s0 IS NOT DISTINCT FROM a.s0 AND (q.k0 > a.k0 OR (q.k0 = a.k0 AND q.k1 > a.k1)))) " +
        "ORDER BY q.s0 ASC NULLS LAST, q.k0 ASC, q.k1 ASC LIMIT CAST($p4 AS BIGINT)",
      params: { now: "2024-06-15T12:00:00.000Z", p1: 7, p2: 7, p3: "7-3", p4: 11 }
    })
    expect(compiled.count).toEqual({
      sql: `SELECT count(*) AS n FROM ${SOURCE} r WHERE r.business_id IN (CAST($p1 AS BIGINT))`,
      params: { now: "2024-06-15T12:00:00.000Z", p1: 7 }
    })
    expect(compiled.anchorExists).toEqual({
      sql: `SELECT count(*) AS n FROM ${SOURCE} r WHERE r.business_id IN (CAST($p1 AS BIGINT)) AND r.key = CAST($p2 AS VARCHAR)`,
      params: { now: "2024-06-15T12:00:00.000Z", p1: 7, p2: "7-3" }
    })
  })

  it("a summary query: group_label first, aggregates, group order, keyed by the group value", () => {
    const compiled = compile(
      normalized({ fields: ["total_count", "person_count"], group: "client_since_month_start_date", sort: ["total_count-"], page: { starting_after: "v:2024-01-01" } }),
      { scope: [7], now: NOW }
    )
    const grouped =
      "g AS (SELECT CAST(date_trunc('month', r.client_since_date) AS DATE) AS group_label, count(*) AS c0, " +
      `count(DISTINCT r.person_id) AS c1 FROM ${SOURCE} r WHERE r.business_id IN (CAST($p1 AS BIGINT)) GROUP BY 1)`
    const keyed =
      "q AS (SELECT g.*, g.c0 AS s0, CASE WHEN g.group_label IS NULL THEN 'null' WHEN length(CAST(g.group_label AS VARCHAR)) <= 200 " +
      "THEN 'v:' || CAST(g.group_label AS VARCHAR) ELSE 'h:' || md5(CAST(g.group_label AS VARCHAR)) END AS key FROM g)"
    expect(compiled.page).toEqual({
      sql:
        `WITH ${grouped}, ${keyed}, a AS (SELECT s0, group_label FROM q WHERE q.key = CAST($p2 AS VARCHAR)) ` +
        "SELECT q.group_label, q.c0, q.c1, q.key FROM q, a WHERE ((a.s0 IS NOT NULL AND (q.s0 IS NULL OR q.s0 < a.s0)) OR " +
        "(q.s0 IS NOT DISTINCT FROM a.s0 AND (a.group_label IS NOT NULL AND (q.group_label IS NULL OR q.group_label > a.group_label)))) " +
        "ORDER BY q.s0 DESC NULLS LAST, q.group_label ASC NULLS LAST LIMIT CAST($p3 AS BIGINT)",
      params: { now: "2024-06-15T12:00:00.000Z", p1: 7, p2: "v:2024-01-01", p3: 101 }
    })
  })

  it("a summary query sorted by an aggregate it does not return computes it aside", () => {
    const compiled = compile(normalized({ fields: ["total_count"], group: "home_location_name", sort: ["total_net_paid_amount-"] }), {
      scope: [7],
      now: NOW
    })
    expect(compiled.page.sql).toContain("count(*) AS c0, coalesce(sum(r.net_paid_amount), 0) AS x0 FROM")
    expect(compiled.page.sql).toContain("SELECT g.*, g.x0 AS s0,")
    expect(compiled.page.sql).toContain("SELECT q.group_label, q.c0, q.key FROM q ORDER BY q.s0 DESC NULLS LAST, q.group_label ASC NULLS LAST")
  })

  it("an empty scope matches nothing", () => {
    expect(compile(normalized({ fields: ["key"] }), { scope: [], now: NOW }).page.sql).toContain("WHERE FALSE)")
  })
})
