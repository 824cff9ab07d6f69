import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientRow, memoryStore, page, problemsOf } from "./support.ts"

/**
 * Each operation, combinator, grouping and pagination rule executed on DuckDB over a small
 * fixed set of clients (the query's clock is 2024-06-15 12:00 UTC).
 */

let store: Awaited<ReturnType<typeof memoryStore>>

beforeAll(async () => {
  store = await memoryStore([
    clientRow({
      business_id: 1, person_id: 1, first_name: "Ann", last_name: "Archer", full_name: "Ann Archer", email: "ann@example.test",
      birthdate: "1990-06-15", client_since_date: "2024-06-01", also_staff: true, has_membership: true,
      home_location_name: "Downtown", completed_visits: 3, net_paid_amount: 1000, revenue_amount: 900, account_claim_date: "2024-06-02"
    }),
    clientRow({
      business_id: 1, person_id: 2, first_name: "bob", last_name: "Baker", full_name: "bob Baker", email: "BOB@Example.test",
      birthdate: "2000-12-31", client_since_date: "2023-01-10", person_state: "hidden", is_schedulable: false,
      home_location_name: "Uptown", completed_visits: 5, net_paid_amount: 2500, revenue_amount: 2000
    }),
    clientRow({
      business_id: 1, person_id: 3, first_name: "Cy", last_name: "", full_name: "Cy", email: null,
      client_since_date: "2021-03-03", person_state: "deleted", is_schedulable: false, source_name: "file"
    }),
    clientRow({
      business_id: 1, person_id: 4, first_name: "Dee", last_name: "Dent", full_name: "Dee Dent", email: "dee@example.test",
      client_since_date: "2024-04-20", home_location_name: "Downtown", completed_visits: 7, last_visit_date: "2024-06-10",
      birthdate: "2000-02-29"
    }),
    clientRow({ business_id: 2, person_id: 1, first_name: "Eve", last_name: "Evans", full_name: "Eve Evans", business_name: "Other" })
  ])
})
afterAll(() => store?.close())

const keys = async (filter: unknown, extra: Record<string, unknown> = {}) =>
  (await page(store.connection, { fields: ["key"], filter, sort: ["key+"], ...extra })).rows.map((r) => r[0])

describe("detail rows", () => {
  it("return the requested fields in order, in their wire types, with typed `fields`", async () => {
    const result = await page(store.connection, {
      fields: ["person_id", "first_name", "also_staff", "net_paid_amount", "birthdate", "person_state", "key"],
      filter: ["eq", "person_id", 1]
    })
    expect(result.fields).toEqual([
      { name: "person_id", type: "integer" },
      { name: "first_name", type: "string" },
      { name: "also_staff", type: "boolean" },
      { name: "net_paid_amount", type: "currency" },
      { name: "birthdate", type: "date" },
      { name: "person_state", type: "enum" },
      { name: "key", type: "string" }
    ])
    expect(result.rows).toEqual([[1, "Ann", "t", 1000, "1990-06-15", "active", "1-1"]])
    expect(result).toMatchObject({ hasMore: false, lastKey: "1-1", totalCount: undefined })
  })

  it("are scoped to the caller's businesses", async () => {
    expect(await keys(undefined)).toEqual(["1-1", "1-2", "1-3", "1-4"])
    expect((await page(store.connection, { fields: ["key"], sort: ["key+"] }, { scope: [1, 2] })).rows.map((r) => r[0])).toEqual([
      "1-1", "1-2", "1-3", "1-4", "2-1"
    ])
    expect((await page(store.connection, { fields: ["key"] }, { scope: [] })).rows).toEqual([])
  })

  it("compute fields relative to today in the business's time zone", async () => {
    const result = await page(store.connection, {
      fields: ["key", "age", "days_until_birthday", "tenure", "tenure_group", "days_since_last_visit"],
      sort: ["key+"]
    })
    expect(result.rows).toEqual([
      ["1-1", 34, 0, 14, "0_month", null],
      ["1-2", 23, 199, 522, "3_two_years", null],
      ["1-3", null, null, 1200, "5_over_three_years", null],
      ["1-4", 24, 258, 56, "1_quarter", 5]
    ])
  })
})

describe("filter operations", () => {
  it("eq compares text case-insensitively, numbers, dates and booleans by value", async () => {
    expect(await keys(["eq", "first_name", "ANN"])).toEqual(["1-1"])
    expect(await keys(["eq", "email", "bob@example.TEST"])).toEqual(["1-2"])
    expect(await keys(["eq", "completed_visits", 5])).toEqual(["1-2"])
    expect(await keys(["eq", "client_since_date", "2024-04-20"])).toEqual(["1-4"])
    expect(await keys(["eq", "also_staff", true])).toEqual(["1-1"])
    expect(await keys(["eq", "also_staff", "t"])).toEqual(["1-1"])
    expect(await keys(["eq", "is_schedulable", "f"])).toEqual(["1-2", "1-3"])
    expect(await keys(["eq", "person_state", "Hidden"])).toEqual(["1-2"])
  })

  it("ne (and its alias neq) keeps rows without a value", async () => {
    expect(await keys(["ne", "home_location_name", "downtown"])).toEqual(["1-2", "1-3"])
    expect(await keys(["neq", "completed_visits", 0])).toEqual(["1-1", "1-2", "1-4"])
  })

  it("gt and lt are strict; btw is inclusive, in both forms", async () => {
    expect(await keys(["gt", "completed_visits", 3])).toEqual(["1-2", "1-4"])
    expect(await keys(["lt", "client_since_date", "2024-01-01"])).toEqual(["1-2", "1-3"])
    expect(await keys(["btw", "completed_visits", 3, 5])).toEqual(["1-1", "1-2"])
    expect(await keys(["btw", "completed_visits", [3, 5]])).toEqual(["1-1", "1-2"])
    expect(await keys(["btw", "client_since_date", "2024-04-20", "2024-06-01"])).toEqual(["1-1", "1-4"])
    expect(await keys(["gt", "last_name", "b"])).toEqual(["1-2", "1-4"])
  })

  it("contains, wo, starts and ends match text case-insensitively and literally", async () => {
    expect(await keys(["contains", "email", "EXAMPLE"])).toEqual(["1-1", "1-2", "1-4"])
    expect(await keys(["wo", "email", "bob"])).toEqual(["1-1", "1-3", "1-4"])
    expect(await keys(["starts", "full_name", "b"])).toEqual(["1-2"])
    expect(await keys(["ends", "email", ".TEST"])).toEqual(["1-1", "1-2", "1-4"])
    // LIKE wildcards in a value are just characters.
    expect(await keys(["contains", "email", "%"])).toEqual([])
    expect(await keys(["starts", "first_name", "_"])).toEqual([])
  })

  it("emp matches NULL and the empty string; nemp the rest", async () => {
    expect(await keys(["emp", "last_name"])).toEqual(["1-3"])
    expect(await keys(["emp", "email"])).toEqual(["1-3"])
    expect(await keys(["nemp", "home_location_name"])).toEqual(["1-1", "1-2", "1-4"])
    expect(await keys(["emp", "birthdate"])).toEqual(["1-3"])
    expect(await keys(["nemp", "last_visit_date"])).toEqual(["1-4"])
  })

  it("and / or nest; a top-level list of filters is their and", async () => {
    expect(await keys(["and", [["eq", "home_location_name", "Downtown"], ["gt", "completed_visits", 4]]])).toEqual(["1-4"])
    expect(await keys(["or", [["eq", "first_name", "cy"], ["eq", "first_name", "bob"]]])).toEqual(["1-2", "1-3"])
    expect(
      await keys(["or", [["and", [["eq", "person_state", "active"], ["lt", "completed_visits", 5]]], ["eq", "source_name", "file"]]])
    ).toEqual(["1-1", "1-3"])
    expect(await keys([["eq", "home_location_name", "Downtown"], ["gt", "completed_visits", 4]])).toEqual(["1-4"])
    expect(await keys(["and", []])).toEqual(["1-1", "1-2", "1-3", "1-4"])
    expect(await keys(["or", []])).toEqual([])
  })

  it("filters on groupings that are not detail fields (date buckets)", async () => {
    expect(await keys(["eq", "client_since_month_start_date", "2024-06-01"])).toEqual(["1-1"])
  })

  it("treats injection attempts in values as values", async () => {
    expect(await keys(["eq", "first_name", "x' OR '1'='1"])).toEqual([])
    expect(await keys(["contains", "email", "'); DROP TABLE clients; --"])).toEqual([])
    expect(await keys(undefined)).toHaveLength(4)
  })
})

describe("sorting", () => {
  it("orders by each key in turn, text case-insensitively, NULLs last, ties by key", async () => {
    const names = async (sort: Array<string>) =>
      (await page(store.connection, { fields: ["key"], sort })).rows.map((r) => r[0])
    expect(await names(["first_name+"])).toEqual(["1-1", "1-2", "1-3", "1-4"])
    expect(await names(["first_name-"])).toEqual(["1-4", "1-3", "1-2", "1-1"])
    expect(await names(["home_location_name+"])).toEqual(["1-1", "1-4", "1-2", "1-3"])
    expect(await names(["home_location_name-"])).toEqual(["1-2", "1-1", "1-4", "1-3"])
    expect(await names(["home_location_name+", "completed_visits-"])).toEqual(["1-4", "1-1", "1-2", "1-3"])
    expect(await names(["-completed_visits"])).toEqual(["1-4", "1-2", "1-1", "1-3"])
    expect(await names(["age"])).toEqual(["1-2", "1-4", "1-1", "1-3"])
  })
})

describe("pagination", () => {
  it("continues after starting_after under any sort, with has_more and last_key", async () => {
    for (const sort of [[], ["home_location_name+"], ["home_location_name-", "completed_visits+"], ["email-"], ["also_staff+"]]) {
      const all = (await page(store.connection, { fields: ["key"], sort })).rows.map((r) => r[0])
      const seen: Array<unknown> = []
      let after: string | null = null
      for (let i = 0; i < 10; i++) {
        const next: Awaited<ReturnType<typeof page>> = await page(store.connection, {
          fields: ["key"],
          sort,
          page: after === null ? { limit: 1 } : { limit: 1, starting_after: after }
        })
        seen.push(...next.rows.map((r) => r[0]))
        after = next.lastKey
        if (!next.hasMore) break
      }
      expect(seen, JSON.stringify(sort)).toEqual(all)
    }
  })

  it("keeps its place when the anchor row no longer matches the filter", async () => {
    const result = await page(store.connection, {
      fields: ["key"],
      filter: ["eq", "home_location_name", "downtown"],
      sort: ["key+"],
      page: { starting_after: "1-2" }
    })
    expect(result.rows).toEqual([["1-4"]])
  })

  it("counts all matching rows with total_count", async () => {
    const result = await page(store.connection, { fields: ["key"], filter: ["nemp", "email"], page: { limit: 1 }, total_count: true })
    expect(result).toMatchObject({ totalCount: 3, hasMore: true, rows: [["1-1"]] })
  })

  it("refuses a starting_after that is no key of the query", async () => {
    expect(await problemsOf(store.connection, { fields: ["key"], page: { starting_after: "2-1" } })).toEqual([
      "page.starting_after is not a key of this query's rows"
    ])
    expect(await problemsOf(store.connection, { fields: ["key"], page: { starting_after: "nope" } })).toHaveLength(1)
  })
})

describe("summary rows", () => {
  it("begin with group_label typed like the grouping, then the summary fields", async () => {
    const result = await page(store.connection, {
      fields: ["total_count", "person_count", "total_completed_visits", "also_staff_count", "total_net_paid_amount", "business_id_summary"],
      group: "home_location_name"
    })
    expect(result.fields).toEqual([
      { name: "group_label", type: "string" },
      { name: "total_count", type: "integer" },
      { name: "person_count", type: "integer" },
      { name: "total_completed_visits", type: "integer" },
      { name: "also_staff_count", type: "integer" },
      { name: "total_net_paid_amount", type: "currency" },
      { name: "business_id_summary", type: "string" }
    ])
    expect(result.rows).toEqual([
      ["Downtown", 2, 2, 10, 1, 1000, "1"],
      ["Uptown", 1, 1, 5, 0, 2500, "1"],
      [null, 1, 1, 0, 0, 0, "1"]
    ])
    expect(result.lastKey).toBe("null")
  })

  it("group by booleans, enums, dates and every date bucket", async () => {
    const groups = async (group: string) =>
      (await page(store.connection, { fields: ["total_count"], group })).rows.map((r) => [r[0], r[1]])
    expect(await groups("also_staff")).toEqual([["f", 3], ["t", 1]])
    expect(await groups("person_state")).toEqual([["active", 2], ["deleted", 1], ["hidden", 1]])
    expect(await groups("client_since_month_start_date")).toEqual([["2021-03-01", 1], ["2023-01-01", 1], ["2024-04-01", 1], ["2024-06-01", 1]])
    expect(await groups("client_since_quarter_start_date")).toEqual([["2021-01-01", 1], ["2023-01-01", 1], ["2024-04-01", 2]])
    expect(await groups("client_since_year_start_date")).toEqual([["2021-01-01", 1], ["2023-01-01", 1], ["2024-01-01", 2]])
    // 2024-06-01 is a Saturday; 2024-04-20 too; 2023-01-10 a Tuesday; 2021-03-03 a Wednesday.
    expect(await groups("client_since_week_mon_start_date")).toEqual([["2021-03-01", 1], ["2023-01-09", 1], ["2024-04-15", 1], ["2024-05-27", 1]])
    expect(await groups("client_since_week_sun_start_date")).toEqual([["2021-02-28", 1], ["2023-01-08", 1], ["2024-04-14", 1], ["2024-05-26", 1]])
    expect(await groups("tenure_group")).toEqual([["0_month", 1], ["1_quarter", 1], ["3_two_years", 1], ["5_over_three_years", 1]])
    expect(await groups("age")).toEqual([[23, 1], [24, 1], [34, 1], [null, 1]])
  })

  it("sort by summary fields and the group, and paginate by group key", async () => {
    const query = { fields: ["total_completed_visits"], group: "home_location_name", sort: ["total_completed_visits-"] }
    expect((await page(store.connection, query)).rows).toEqual([["Downtown", 10], ["Uptown", 5], [null, 0]])
    const first = await page(store.connection, { ...query, page: { limit: 1 } })
    expect(first).toMatchObject({ rows: [["Downtown", 10]], hasMore: true, lastKey: "v:Downtown" })
    const second = await page(store.connection, { ...query, page: { limit: 5, starting_after: first.lastKey } })
    expect(second).toMatchObject({ rows: [["Uptown", 5], [null, 0]], hasMore: false })
    // Sorting by an aggregate that is not requested, and by group_label.
    expect((await page(store.connection, { fields: ["total_count"], group: "home_location_name", sort: ["person_count-", "group_label-"] })).rows)
      .toEqual([["Downtown", 2], ["Uptown", 1], [null, 1]])
    expect((await page(store.connection, { fields: ["total_count"], group: "age", sort: ["age-"] })).rows.map((r) => r[0]))
      .toEqual([34, 24, 23, null])
  })

  it("apply the filter before grouping and count groups with total_count", async () => {
    const result = await page(store.connection, {
      fields: ["total_count"],
      group: "home_location_name",
      filter: ["gt", "completed_visits", 0],
      total_count: true
    })
    expect(result.rows).toEqual([["Downtown", 2], ["Uptown", 1]])
    expect(result.totalCount).toBe(2)
  })
})
