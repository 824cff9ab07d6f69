import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSettableClock } from "../support/clock.ts"
import { NOW, type Studio, setUpStudio } from "../support/studio.ts"

/**
 * The admission lock (lock_occurrences_for_admission, sql/migrations/0044) makes its plans once
 * per connection, with the statistics of that moment. Here they are made when an occurrence has
 * gained a thousand visits (and the business a thousand people) that the statistics do not know
 * yet, as on a young database. Its statements' plans, as PostgreSQL ran them (auto_explain, sent
 * to this client as notices), must read only the rows they were asked for: no scan of visits,
 * people or occurrences throws rows away. With the lookups written `= any(array)` and the two
 * indexes of an occurrence's visits (before 0043), the visitors' lookup read every visit of the
 * occurrence and discarded all but the person's.
 */
const clock = makeSettableClock(NOW)
let s: Studio
let client: pg.Client
const plans: Array<string> = []

beforeAll(async () => {
  s = await setUpStudio(clock, { capacity: 5000 })
  client = new pg.Client({ connectionString: s.server.databaseUrl })
  await client.connect()
  client.on("notice", (notice) => plans.push(notice.message ?? ""))
})
afterAll(async () => {
  await client?.end()
  await s?.server.close()
})

const lock = (occurrence: number, people: ReadonlyArray<number>) =>
  client.query("select * from lock_occurrences_for_admission($1, $2, $3)", [s.business.id, [occurrence], people])

/** `count` new people in the business, each with a visit to `occurrence`. */
const fill = (occurrence: number, count: number) =>
  s.pool.query(
    `with people as (
       insert into people (business_id, first_name, last_name, updated_at) select $1, 'Filled', 'Person ' || g, now() - g * interval '1 second' from generate_series(1, $3::int) g returning id)
     insert into visits (business_id, event_occurrence_id, person_id, state, registered_at)
     select $1, $2, id, 'registered', now() from people`,
    [s.business.id, occurrence, count]
  )

/** The scans of visits, people or occurrences in the plans that read rows and threw them away. */
const discardingScans = (planTexts: ReadonlyArray<string>) =>
  planTexts.flatMap((plan) => {
    let scan = ""
    return plan.split("\n").flatMap((line) => {
      if (/Scan/.test(line)) scan = line.trim()
      return /Rows Removed by (Filter|Index Recheck): [1-9]/.test(line) && / on (visits|people|event_occurrences) /.test(scan) ? [scan] : []
    })
  })

describe("the admission lock's plans", () => {
  it("read only the asked-for rows when they are made on visits the statistics do not know", async () => {
    const occurrence = s.yoga("2026-11-10").id
    await fill(occurrence, 1000)
    const { rows: [someone] } = await s.pool.query(
      "select person_id from visits where business_id = $1 and event_occurrence_id = $2 order by id desc limit 1", [s.business.id, occurrence])

    await client.query("load 'auto_explain'")
    for (const setting of ["log_min_duration = 0", "log_analyze = on", "log_nested_statements = on", "log_level = notice"]) {
      await client.query(`set auto_explain.${setting}`)
    }
    await client.query("begin")
    const { rows: [row] } = await lock(occurrence, [s.cleo.personId, someone.person_id])
    await client.query("rollback")
    await client.query("reset all")

    expect(row.taken).toBe(1000)
    expect(row.visitors).toEqual([Number(someone.person_id)])
    const nested = plans.filter((plan) => !plan.includes("lock_occurrences_for_admission($1"))
    expect(nested.length).toBeGreaterThanOrEqual(3)
    expect(discardingScans(nested), nested.join("\n\n")).toEqual([])
  })
})
