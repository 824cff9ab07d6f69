import { DuckDBInstance } from "@duckdb/node-api"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { readCurrent } from "../../reports/sync/generations.ts"
import { syncReports } from "../../reports/sync/sync.ts"
import { DUCKDB_OPTIONS } from "../../reports/sync/copy.ts"
import { createTestDatabase } from "../support/database.ts"
import { createBusiness, createPerson } from "../support/factories.ts"

/**
 * Name lists are ordered by bytes on both engines: a full rebuild (DuckDB) and a refresh
 * (PostgreSQL) of the same row agree even when the database's collation is a language's.
 */

let database: Awaited<ReturnType<typeof createTestDatabase>>
const dir = path.resolve(`.data/test/reports-collation-${process.pid}`)
let guardianId: number

beforeAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true })
  database = await createTestDatabase({ icuLocale: "en-US" })
  const pool = database.pool
  const business = await createBusiness(pool, { subdomain: "collation", time_zone: "UTC" })
  const guardian = await createPerson(pool, business.id, { first_name: "Kim", last_name: "Young" })
  guardianId = guardian.personId
  // Two dependents whose last names sort apart by language and by bytes.
  for (const [first_name, last_name] of [
    ["Diego", "de la Cruz"],
    ["Yolanda", "Young"]
  ] as const) {
    const dependent = await createPerson(pool, business.id, { first_name, last_name })
    await pool.query(`insert into person_relationships (business_id, provider_id, dependent_id) values ($1, $2, $3)`, [
      business.id,
      guardian.personId,
      dependent.personId
    ])
  }
})
afterAll(async () => {
  await database?.drop()
  fs.rmSync(dir, { recursive: true, force: true })
})

it("orders a guardian's dependents the same after a rebuild and after a refresh, whatever the database's collation", async () => {
  // The database really sorts by language: "de la Cruz" before "Young".
  const { rows } = await database.pool.query<{ by_language: boolean }>(`select 'de la Cruz' < 'Young' as by_language`)
  expect(rows[0]!.by_language).toBe(true)

  const sync = (mode: "full" | "incremental") => syncReports({ databaseUrl: database.url, dir, mode })
  expect((await sync("full")).outcome).toBe("full")
  // The refresh re-reads these people (changed within its overlap) on PostgreSQL and finds them equal.
  expect((await sync("incremental")).outcome).toBe("unchanged")

  const current = readCurrent(dir)!
  const instance = await DuckDBInstance.create(path.join(dir, current.file), { ...DUCKDB_OPTIONS, access_mode: "READ_ONLY" })
  try {
    const connection = await instance.connect()
    const reader = await connection.runAndReadAll(`SELECT dependent_names FROM clients WHERE person_id = ${guardianId}`)
    // Bytes: upper case before lower case.
    expect(reader.getRows()[0]![0]).toBe("Yolanda Young, Diego de la Cruz")
    connection.closeSync()
  } finally {
    instance.closeSync()
  }
})
