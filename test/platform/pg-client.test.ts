import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectClient } from "../../src/platform/pg-client.ts"
import { createTestDatabase } from "../support/database.ts"

/**
 * A task's own `pg` client (migrations, report syncs) whose connection the server ends while it
 * waits between statements: its `error` event, unheard, would end the process (a worker crashed so
 * when its database's backends were terminated under a report sync). The client fails its next
 * statement instead.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => database?.drop())

describe("connectClient", () => {
  it("outlives its connection ended by the server: the next statement fails, the process goes on", async () => {
    const name = `pg-client-test-${process.pid}`
    const client = await connectClient({ connectionString: database.url, application_name: name })
    expect((await client.query("select 1 as one")).rows).toEqual([{ one: 1 }])
    const ended = new Promise<void>((resolve) => client.once("end", () => resolve()))
    const { rows } = await database.pool.query("select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = $1", [name])
    expect(rows).toEqual([{ done: true }])
    await ended
    await expect(client.query("select 1")).rejects.toThrow()
    await client.end().catch(() => {})
  })

  it("is how the code opens a pg client, unless the file listens for its errors itself", () => {
    const files = (dir: string): Array<string> =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : []
      )
    const unheard = ["src", "reports", "workers"].flatMap(files).filter((file) => {
      const text = fs.readFileSync(file, "utf8")
      return /new pg\.Client\(/.test(text) && !file.endsWith(path.join("platform", "pg-client.ts")) && !/\.on\("error"/.test(text)
    })
    expect(unheard).toEqual([])
  })
})
