import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { connectClient } from "./pg-client.ts"
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from "graphile-worker"

export const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../sql/migrations")

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/

/** The migration files in the order they apply: `NNNN_verb_object.sql`, forward-only. */
export const listMigrations = (dir = migrationsDir): ReadonlyArray<{ version: string; name: string; file: string }> =>
  fs
    .readdirSync(dir)
    .filter((name) => MIGRATION_FILE.test(name))
    .sort()
    .map((name) => ({ version: name.slice(0, 4), name, file: path.join(dir, name) }))

/**
 * Applies every pending migration, each in its own transaction, and records it in
 * `schema_migrations`; then graphile-worker's own schema. An advisory lock makes concurrent
 * starts (server and worker processes) safe. Uses `pg` directly: migration files hold many
 * statements, which only the simple query protocol accepts.
 */
export const migrate = async (
  connectionString: string,
  log: (message: string) => void = () => {}
): Promise<ReadonlyArray<string>> => {
  const client = await connectClient({ connectionString })
  const applied: Array<string> = []
  try {
    await client.query("select pg_advisory_lock(hashtext('studio:migrate'))")
    await client.query(
      "create table if not exists schema_migrations (version text primary key, name text not null, applied_at timestamptz not null default now())"
    )
    const done = new Set(
      (await client.query<{ version: string }>("select version from schema_migrations")).rows.map((r) => r.version)
    )
    for (const migration of listMigrations()) {
      if (done.has(migration.version)) continue
      const sql = fs.readFileSync(migration.file, "utf8")
      await client.query("begin")
      try {
        await client.query(sql)
        await client.query("insert into schema_migrations (version, name) values ($1, $2)", [migration.version, migration.name])
        await client.query("commit")
      } catch (cause) {
        await client.query("rollback")
        throw new Error(`Migration ${migration.name} failed: ${(cause as Error).message}`, { cause })
      }
      applied.push(migration.name)
      log(`applied ${migration.name}`)
    }
    // Our own pool, ended before we return: no idle graphile-worker connection outlives the
    // migration (a later `drop database ... with (force)` would otherwise kill it unhandled).
    const pool = new pg.Pool({ connectionString, max: 1 })
    pool.on("error", () => {})
    pool.on("connect", (client) => client.on("error", () => {}))
    try {
      await runWorkerMigrations({ pgPool: pool, logger: quietWorkerLogger })
    } finally {
      await pool.end()
    }
  } finally {
    await client.query("select pg_advisory_unlock(hashtext('studio:migrate'))").catch(() => {})
    await client.end()
  }
  return applied
}

/** Creates the database named in the URL when it does not exist (embedded and test servers). */
export const ensureDatabase = async (connectionString: string): Promise<void> => {
  const url = new URL(connectionString)
  const database = decodeURIComponent(url.pathname.slice(1))
  url.pathname = "/postgres"
  const client = await connectClient({ connectionString: url.toString() })
  try {
    const exists = await client.query("select 1 from pg_database where datname = $1", [database])
    if (exists.rowCount === 0) {
      // Two processes starting on a fresh cluster both find it missing: the loser's create is a no-op.
      await client.query(`create database "${database.replaceAll('"', '""')}"`).catch((error: { code?: string }) => {
        if (error.code !== "42P04" && error.code !== "23505") throw error
      })
    }
  } finally {
    await client.end()
  }
}

export const quietWorkerLogger = new WorkerLogger(() => (level, message) => {
  if (level === "error" || level === "warning") process.stderr.write(JSON.stringify({ level, source: "graphile-worker", message }) + "\n")
})
