import { inject } from "vitest"
import { describe, expect, it } from "vitest"
import pg from "pg"
import { ensureDatabase, listMigrations, migrate } from "../../src/platform/migrator.ts"

describe("the migrator", () => {
  it("applies every migration in order once, records it, and is a no-op the second time", async () => {
    const url = Object.assign(new URL(inject("postgresServerUrl")), { pathname: `/migrate_${Date.now()}` }).toString()
    await ensureDatabase(url)
    const first = await migrate(url)
    expect(first).toEqual(listMigrations().map((m) => m.name))
    expect(await migrate(url)).toEqual([])
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const recorded = await client.query("select version from schema_migrations order by version")
      expect(recorded.rows.map((r) => r.version)).toEqual(listMigrations().map((m) => m.version))
      const worker = await client.query("select count(*)::int as n from information_schema.schemata where schema_name = 'graphile_worker'")
      expect(worker.rows[0].n).toBe(1)
    } finally {
      await client.end()
      const admin = new pg.Client({ connectionString: inject("postgresServerUrl") })
      await admin.connect()
      await admin.query(`drop database ${new URL(url).pathname.slice(1)} with (force)`)
      await admin.end()
    }
  })

  it("lists files named NNNN_verb_object.sql in order", () => {
    const names = listMigrations().map((m) => m.name)
    expect(names.length).toBeGreaterThan(0)
    expect([...names].sort()).toEqual(names)
    for (const name of names) expect(name).toMatch(/^\d{4}_[a-z0-9_]+\.sql$/)
  })

  it("runs concurrently without applying a migration twice", async () => {
    const url = Object.assign(new URL(inject("postgresServerUrl")), { pathname: `/migrate_race_${Date.now()}` }).toString()
    await ensureDatabase(url)
    const [a, b] = await Promise.all([migrate(url), migrate(url)])
    expect([...a, ...b].sort()).toEqual(listMigrations().map((m) => m.name))
    const admin = new pg.Client({ connectionString: inject("postgresServerUrl") })
    await admin.connect()
    await admin.query(`drop database ${new URL(url).pathname.slice(1)} with (force)`)
    await admin.end()
  })
})
