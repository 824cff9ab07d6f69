import { DuckDBInstance } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeReader } from "../../reports/store.ts"
import { StoreConnection } from "../../reports/store-connection.ts"
import { readCurrent } from "../../reports/sync/generations.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { DUCKDB_OPTIONS } from "../../reports/sync/copy.ts"
import { createPlan, createPlanProduct } from "../support/billing-factories.ts"
import { createTestDatabase } from "../support/database.ts"
import { createBusiness, createLocation, createPerson } from "../support/factories.ts"

/**
 * The store built from PostgreSQL: full rebuilds into new generations, incremental refreshes,
 * the switch readers see, and PostgreSQL values surviving the trip through CSV.
 */

let database: Awaited<ReturnType<typeof createTestDatabase>>
const dir = path.resolve(`.data/test/reports-sync-${process.pid}`)
let business: { id: number }
let ada: Awaited<ReturnType<typeof createPerson>>
let child: Awaited<ReturnType<typeof createPerson>>

const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: database.url, dir, mode })

/** Rows of the current generation, read the way the server reads them. */
const readClients = async (where = "true") => {
  const current = readCurrent(dir)!
  const instance = await DuckDBInstance.create(path.join(dir, current.file), { ...DUCKDB_OPTIONS, access_mode: "READ_ONLY" })
  try {
    const connection = await instance.connect()
    const reader = await connection.runAndReadAll(`SELECT * FROM clients WHERE ${where} ORDER BY person_id`)
    connection.closeSync()
    return reader.getRowObjectsJson()
  } finally {
    instance.closeSync()
  }
}

beforeAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true })
  database = await createTestDatabase()
  const pool = database.pool
  const holding = await createBusiness(pool, { subdomain: "holding", time_zone: "Asia/Tokyo", currency_code: "JPY" })
  business = await createBusiness(pool, { subdomain: "studio", name: "Studio, \"One\"", time_zone: "America/Los_Angeles", franchise_parent_id: holding.id })
  const location = await createLocation(pool, business.id, { name: "Down,town\nEast" })
  ada = await createPerson(pool, business.id, { first_name: "Ada", last_name: "Lovelace", role: "standard" })
  child = await createPerson(pool, business.id, { first_name: "Byron", last_name: "" })
  await pool.query(
    `update people set birthdate = '2010-02-03', phone = '', joined_at = '2024-03-01T05:00:00Z', location_id = $3,
       middle_name = null where business_id = $1 and id = $2`,
    [business.id, child.personId, location.id]
  )
  await pool.query(`insert into person_relationships (business_id, provider_id, dependent_id) values ($1, $2, $3)`, [
    business.id,
    ada.personId,
    child.personId
  ])
  // The child holds an unlimited membership: has_membership comes from plans.
  const membership = await createPlanProduct(pool, business.id, { kind: "membership", name: "Kids Club" })
  await createPlan(pool, business.id, membership.id, [child.personId], { start_date: "2024-01-01" })
  await pool.query(`update accounts set password_hash = 'x', email_confirmed_at = '2024-05-02T03:00:00Z' where id = $1`, [ada.accountId])
  await pool.query(`update people set hidden_at = now() where business_id = $1 and id = $2`, [business.id, ada.personId])
})
afterAll(async () => {
  await database?.drop()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe("a full rebuild", () => {
  it("writes a new generation, publishes it and carries every PostgreSQL value through intact", async () => {
    const summary = await sync("full")
    expect(summary).toMatchObject({ outcome: "full", generation: 1, rows: { clients: 2, custom_fields: 0 } })
    expect(readCurrent(dir)).toMatchObject({ generation: 1, file: "store-1.duckdb", mode: "full" })
    expect(fs.readdirSync(dir).sort()).toEqual(["current.json", "store-1.duckdb"])

    const [adaRow, childRow] = await readClients()
    expect(adaRow).toMatchObject({
      key: `${business.id}-${ada.personId}`,
      business_name: 'Studio, "One"',
      business_subdomain: "studio",
      currency_code: "USD",
      time_zone: "America/Los_Angeles",
      full_name: "Ada Lovelace",
      also_staff: true,
      person_state: "hidden",
      is_schedulable: false,
      // Confirmed 2024-05-02 03:00 UTC: still 1 May in Los Angeles.
      account_claim_date: "2024-05-01",
      dependent_names: "Byron",
      account_manager_names: null,
      source_name: "unknown",
      completed_visits: "0",
      last_visit_date: null
    })
    expect(childRow).toMatchObject({
      first_name: "Byron",
      last_name: "",
      full_name: "Byron",
      phone: "",
      middle_name: null,
      birthdate: "2010-02-03",
      client_since_date: "2024-02-29",
      home_location_name: "Down,town\nEast",
      has_membership: true,
      also_staff: false,
      person_state: "active",
      account_manager_names: "Ada Lovelace",
      guardian_name: "Ada Lovelace",
      guardian_email: ada.email,
      account_claim_date: null
    })
    // A franchisee reports its holding.
    expect(Number(adaRow!.franchise_id)).toBeGreaterThan(0)
  })

  it("removes what a crashed rebuild left: its mirror file, a spill folder, a CSV file", async () => {
    fs.writeFileSync(path.join(dir, "mirror-999999.duckdb"), "")
    fs.writeFileSync(path.join(dir, "mirror-999999.duckdb.wal"), "")
    fs.mkdirSync(path.join(dir, "store-9.duckdb.tmp"))
    fs.writeFileSync(path.join(dir, "store-9.duckdb.tmp", "spill.block"), "")
    fs.writeFileSync(path.join(dir, "clients-999999.csv"), "")
    const { generation } = await sync("full")
    expect(fs.readdirSync(dir).sort()).toEqual(["current.json", `store-${generation - 1}.duckdb`, `store-${generation}.duckdb`])
  })

  it("replaces the previous generation, keeping one behind for readers mid-switch", async () => {
    await sync("full")
    const { generation } = await sync("full")
    expect(fs.readdirSync(dir).sort()).toEqual(["current.json", `store-${generation - 1}.duckdb`, `store-${generation}.duckdb`])
  })
})

describe("a full rebuild that fails", () => {
  it("keeps the published store, and leaves no file behind, when a table's build fails", async () => {
    const before = readCurrent(dir)!
    const files = fs.readdirSync(dir).sort()
    // The mirrors copy fine; the invoice tables' SQL on DuckDB then misses a column it reads.
    await database.pool.query("alter table invoices rename column invoice_number to invoice_number_gone")
    try {
      await expect(sync("full")).rejects.toThrow(/invoice_number/)
    } finally {
      await database.pool.query("alter table invoices rename column invoice_number_gone to invoice_number")
    }
    expect(readCurrent(dir)).toEqual(before)
    expect(fs.readdirSync(dir).sort()).toEqual(files)
    // Nothing of the failed rebuild's connections is left holding the snapshot or a lock.
    const { rows } = await database.pool.query(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'studio-report-sync'"
    )
    expect(rows[0].n).toBe(0)
    expect((await sync("full")).generation).toBe(before.generation + 1)
  })
})

describe("an incremental refresh", () => {
  it("only moves the watermark when nothing changed", async () => {
    const before = readCurrent(dir)!
    const summary = await sync("incremental")
    expect(summary).toMatchObject({ outcome: "unchanged", generation: before.generation })
    expect(readCurrent(dir)!.file).toBe(before.file)
    expect(Date.parse(readCurrent(dir)!.synced_at)).toBeGreaterThan(Date.parse(before.synced_at))
  })

  it("applies changed and new people to a copy published as the next generation", async () => {
    const before = readCurrent(dir)!
    await database.pool.query(`update people set first_name = 'Augusta', updated_at = now() where business_id = $1 and id = $2`, [
      business.id,
      ada.personId
    ])
    const newcomer = await createPerson(database.pool, business.id, { first_name: "Grace", last_name: "Hopper" })
    const summary = await sync("incremental")
    expect(summary.outcome).toBe("incremental")
    expect(summary.generation).toBe(before.generation + 1)
    const rows = await readClients()
    expect(rows.map((r) => r.first_name)).toEqual(["Augusta", "Byron", "Grace"])
    expect(rows.find((r) => r.person_id === String(newcomer.personId))).toMatchObject({ full_name: "Grace Hopper" })
    // The dependent shows the renamed provider too.
    expect(rows.find((r) => r.first_name === "Byron")).toMatchObject({ account_manager_names: "Augusta Lovelace" })
    expect(readCurrent(dir)).toMatchObject({ mode: "incremental", rebuilt_at: before.rebuilt_at })
  })

  it("rebuilds in full when the store has another shape (a release changed its tables)", async () => {
    const current = readCurrent(dir)!
    fs.writeFileSync(path.join(dir, "current.json"), JSON.stringify({ ...current, schema: "older" }))
    expect(await sync("incremental")).toMatchObject({ outcome: "full", generation: current.generation + 1 })
    expect(readCurrent(dir)!.schema).not.toBe("older")
  })

  it("rebuilds in full when its rows were read by other SQL (a release computes a field anew), serving the old store meanwhile", async () => {
    const current = readCurrent(dir)!
    fs.writeFileSync(path.join(dir, "current.json"), JSON.stringify({ ...current, rows: "older" }))
    const reader = makeReader(dir)
    const open = await reader.acquire()
    expect(open?.file).toBe(current.file)
    reader.release(open!)
    reader.close()
    expect(await sync("incremental")).toMatchObject({ outcome: "full", generation: current.generation + 1 })
    expect(readCurrent(dir)!.rows).not.toBe("older")
    expect((await sync("incremental")).outcome).toBe("unchanged")
  })

  it("rebuilds in full when there is no store yet", async () => {
    const other = `${dir}-fresh`
    try {
      const summary = await syncReports({ databaseUrl: database.url, dir: other, mode: "incremental" })
      expect(summary).toMatchObject({ outcome: "full", generation: 1 })
    } finally {
      fs.rmSync(other, { recursive: true, force: true })
    }
  })
})

describe("the directory lock", () => {
  it("refuses a second writer of the same folder, and takes over a lock its owner left behind", async () => {
    const lock = path.join(dir, "sync.lock")
    fs.writeFileSync(lock, "12345\n")
    await expect(sync("incremental")).rejects.toThrow(/another sync is writing the report store/)
    const hourAgo = new Date(Date.now() - 60 * 60_000)
    fs.utimesSync(lock, hourAgo, hourAgo)
    expect((await sync("incremental")).outcome).toBeDefined()
    expect(fs.existsSync(lock)).toBe(false)
  })
})

describe("readers", () => {
  it("switch to a new generation between queries and finish queries on the old one", async () => {
    const reader = makeReader(dir)
    const first = await reader.acquire()
    expect(first?.file).toBe(readCurrent(dir)!.file)
    await database.pool.query(`update people set last_name = 'King', updated_at = now() where business_id = $1 and id = $2`, [
      business.id,
      ada.personId
    ])
    await sync("incremental")
    const second = await reader.acquire()
    expect(second?.file).not.toBe(first?.file)
    // The query in flight on the old generation still reads it.
    const connection = await first!.instance.connect()
    const old = await connection.runAndReadAll("SELECT count(*) FROM clients")
    expect(Number(old.getRows()[0]![0])).toBe(3)
    connection.closeSync()
    reader.release(first!)
    reader.release(second!)
    reader.close()
  })

  it("keep a connection and its prepared statements between queries, and close them once their generation is replaced", async () => {
    const reader = makeReader(dir)
    const countOf = { sql: "SELECT count(*) FROM clients WHERE business_id = CAST($business AS BIGINT)", params: { business: business.id } }
    const first = (await reader.acquire())!
    const connection = await reader.connect(first)
    expect(Number((await connection.execute(countOf))[0]![0])).toBe(3)
    // Its quick lane reads the same generation on one thread.
    expect(Number((await connection.execute(countOf, "quick"))[0]![0])).toBe(3)
    expect(Number((await connection.execute({ sql: "SELECT current_setting('threads')", params: {} }, "quick"))[0]![0])).toBe(1)
    reader.putBack(first, connection)
    reader.release(first)

    // The next query gets the same connection, and the statement it kept takes new values.
    const again = (await reader.acquire())!
    const kept = await reader.connect(again)
    expect(kept).toBe(connection)
    expect(Number((await kept.execute({ ...countOf, params: { business: -1 } }))[0]![0])).toBe(0)
    reader.putBack(again, kept)
    reader.release(again)

    await database.pool.query(`update people set last_name = 'Lovelace', updated_at = now() where business_id = $1 and id = $2`, [
      business.id,
      ada.personId
    ])
    await sync("incremental")
    const next = (await reader.acquire())!
    expect(next.file).not.toBe(first.file)
    const fresh = await reader.connect(next)
    expect(fresh).not.toBe(connection)
    expect(Number((await fresh.execute(countOf))[0]![0])).toBe(3)
    // The old generation's idle connection was closed with it, both lanes.
    await expect(connection.execute(countOf)).rejects.toThrow()
    await expect(connection.execute(countOf, "quick")).rejects.toThrow()
    reader.putBack(next, fresh)
    reader.release(next)
    reader.close()
  })

  it("drop the least recently used statement beyond what a connection keeps, and answer each with its own values", async () => {
    const instance = await DuckDBInstance.create(":memory:", DUCKDB_OPTIONS)
    const connection = new StoreConnection(await instance.connect(), 1)
    try {
      const plus = (n: number) => ({ sql: "SELECT CAST($n AS BIGINT) + 1", params: { n } })
      const times = (n: number) => ({ sql: "SELECT CAST($n AS BIGINT) * 10", params: { n } })
      expect(Number((await connection.execute(plus(1)))[0]![0])).toBe(2)
      expect(Number((await connection.execute(times(2)))[0]![0])).toBe(20)
      expect(Number((await connection.execute(plus(5)))[0]![0])).toBe(6)
      // A statement that fails is dropped; the connection answers the next one.
      await expect(connection.execute({ sql: "SELECT CAST($n AS BIGINT)", params: { n: "not a number" } })).rejects.toThrow()
      expect(Number((await connection.execute(times(3)))[0]![0])).toBe(30)
    } finally {
      connection.close()
      instance.closeSync()
    }
  })

  it("have nothing to read before the first sync", async () => {
    expect(await makeReader(`${dir}-none`).acquire()).toBeUndefined()
  })
})
