import { execFile } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Catalog, readCatalogAt } from "../../src/platform/citus/catalog.ts"
import { createTestDatabase } from "../support/database.ts"

/** `studio citus-plan` as an operator runs it: a process on the test database, its output piped to psql. */
let database: Awaited<ReturnType<typeof createTestDatabase>>
let catalog: Catalog

const citusPlan = () =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", "citus-plan"],
      { env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: `.data/test/citus-plan-${process.pid}`, LOG_LEVEL: "info" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })

beforeAll(async () => {
  database = await createTestDatabase()
  catalog = await readCatalogAt(database.url)
})
afterAll(async () => database?.drop())

const STATEMENT = /^SELECT (create_reference_table|create_distributed_table)\('([a-z0-9_]+)'(?:, '([a-z_]+)')?(?:, colocate_with => '([a-z0-9_]+)')?\);$/
const LOCAL = /^--   ([a-z0-9_]+): \S/

describe("studio citus-plan", () => {
  it("places every public table once, each after the tables it references", async () => {
    const result = await citusPlan()
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout.trim().split("\n")
    // Foreign keys that close a cycle are dropped before the tables are placed and added back after.
    const dropped = new Map<string, number>()
    const added = new Map<string, number>()
    lines.forEach((line, i) => {
      const drop = /^ALTER TABLE ([a-z0-9_]+) DROP CONSTRAINT ([a-z0-9_]+);$/.exec(line)
      if (drop) dropped.set(drop[2]!, i)
      const add = /^ALTER TABLE ([a-z0-9_]+) ADD CONSTRAINT ([a-z0-9_]+) FOREIGN KEY \(.+\) REFERENCES .+;$/.exec(line)
      if (add) added.set(add[2]!, i)
    })
    expect([...added.keys()].sort()).toEqual([...dropped.keys()].sort())
    const statements = lines.filter((line) => !line.startsWith("--") && !line.startsWith("ALTER TABLE "))
    for (const line of statements) expect(line).toMatch(STATEMENT)

    const placed = statements.map((line) => STATEMENT.exec(line)!)
    const local = lines.map((line) => LOCAL.exec(line)?.[1]).filter((name) => name !== undefined)
    const named = [...placed.map((m) => m[2]!), ...local]
    // Every table exactly once, and nothing that is not a table.
    expect([...named].sort()).toEqual(catalog.tables.map((t) => t.name).sort())
    expect(new Set(named).size).toBe(named.length)

    const line = new Map(placed.map((m) => [m[2]!, lines.indexOf(m[0])]))
    for (const fk of catalog.constraints) {
      if (fk.type !== "f" || fk.referenced_table === fk.table || !line.has(fk.table)) continue
      const [from, to] = [line.get(fk.table)!, line.get(fk.referenced_table!)!]
      if (dropped.has(fk.name)) {
        expect(dropped.get(fk.name)!).toBeLessThan(Math.min(from, to))
        expect(added.get(fk.name)!).toBeGreaterThan(Math.max(from, to))
      } else {
        expect(to, `${fk.name}: ${fk.referenced_table} before ${fk.table}`).toBeLessThan(from)
      }
    }

    // Tenant tables (NOT NULL business_id) are distributed by it in one colocation group with the
    // first of them; the others are reference tables; businesses is one of them.
    const tenant = new Set(catalog.tables.filter((t) => t.business_id === "not null").map((t) => t.name))
    const distributed = placed.filter((m) => m[1] === "create_distributed_table")
    expect(distributed.map((m) => m[2]).sort()).toEqual([...tenant].sort())
    const anchor = distributed[0]!
    expect(anchor[3]).toBe("business_id")
    expect(anchor[4]).toBeUndefined()
    for (const m of distributed.slice(1)) expect([m[3], m[4]]).toEqual(["business_id", anchor[2]])
    expect(placed.find((m) => m[2] === "businesses")?.[1]).toBe("create_reference_table")
    for (const name of local) expect(tenant.has(name)).toBe(false)
    expect(lines.some((line) => line.includes("graphile_worker"))).toBe(true)
  })

  it("refuses a schema that cannot be distributed, naming the table and constraint", async () => {
    const client = database.pool
    await client.query("create table probe_devices (business_id bigint not null references businesses (id), serial text primary key)")
    try {
      const result = await citusPlan()
      expect(result.code).toBe(1)
      expect(result.stdout).toBe("")
      expect(result.stderr).toContain("primary key probe_devices_pkey on probe_devices (serial) omits business_id")
    } finally {
      await client.query("drop table probe_devices")
    }
  })
})
