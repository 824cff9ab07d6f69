import { inject } from "vitest"
import pg from "pg"
import { randomBytes } from "node:crypto"
import { migrate } from "../../src/platform/migrator.ts"

const TEMPLATE_DATABASE = "studio_test_template"

/**
 * A fresh database for one test file, cloned from the migrated template; with `icuLocale`, a
 * database of that ICU collation (`en-US`: "adam" sorts before "Zed"), migrated from scratch.
 */
export const createTestDatabase = async (options: { readonly icuLocale?: string } = {}): Promise<{ url: string; pool: pg.Pool; drop: () => Promise<void> }> => {
  const serverUrl = inject("postgresServerUrl")
  const name = `test_${randomBytes(6).toString("hex")}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  // Cloning needs the template to have no other connections; files may clone at the same time.
  // A template holding a bulk business (TEST_BULK_ENROLLMENTS) is copied as files, not through the WAL.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(
        options.icuLocale === undefined
          ? `create database ${name} template ${TEMPLATE_DATABASE}${process.env.TEST_BULK_ENROLLMENTS ? " strategy file_copy" : ""}`
          : `create database ${name} template template0 locale_provider icu icu_locale '${options.icuLocale.replace(/[^\w-]/g, "")}'`
      )
      break
    } catch (error) {
      if (attempt > 50) throw error
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100))
    }
  }
  await admin.end()
  const url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString()
  if (options.icuLocale !== undefined) await migrate(url)
  const pool = new pg.Pool({ connectionString: url, max: 5 })
  pool.on("error", () => {})
  return {
    url,
    pool,
    drop: async () => {
      await pool.end()
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`drop database if exists ${name} with (force)`)
      await client.end()
    }
  }
}
