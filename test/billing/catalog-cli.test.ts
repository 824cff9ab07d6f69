import { execFile } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createRevenueCategory } from "../support/billing-factories.ts"
import { createBusiness } from "../support/factories.ts"
import { createTestDatabase } from "../support/database.ts"

/** `npm run studio -- revenue-categories rename` as an operator runs it: a process, its output and exit code. */
let database: Awaited<ReturnType<typeof createTestDatabase>>
const dataDir = `.data/test/catalog-cli-${process.pid}`
let businessId: number
let categoryId: number
let otherCategoryId: number
let foreignCategoryId: number

const studio = (...args: Array<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", ...args],
      { env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: "info" }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })

const nameOf = async (id: number) => (await database.pool.query(`select name from revenue_categories where id = $1`, [id])).rows[0].name

beforeAll(async () => {
  database = await createTestDatabase()
  businessId = (await createBusiness(database.pool, { subdomain: "demo" })).id
  const elsewhere = (await createBusiness(database.pool, { subdomain: "elsewhere" })).id
  categoryId = (await createRevenueCategory(database.pool, businessId, "Packs")).id
  otherCategoryId = (await createRevenueCategory(database.pool, businessId, "Memberships")).id
  foreignCategoryId = (await createRevenueCategory(database.pool, elsewhere, "Far")).id
}, 120_000)
afterAll(async () => database?.drop())

describe("npm run studio -- revenue-categories rename", () => {
  it("renames the category and prints it", async () => {
    const result = await studio("revenue-categories", "rename", "--business", "demo", "--id", String(categoryId), "--name", "  Class packs ")
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ revenue_categories: { id: categoryId, name: "Class packs" } })
    expect(await nameOf(categoryId)).toBe("Class packs")
  }, 60_000)

  it("exits non-zero with one clear line, changing nothing, for an unknown or foreign id, a taken or blank name, an unknown business", async () => {
    const cases: Array<[Array<string>, string]> = [
      [["--business", "demo", "--id", "999999", "--name", "X"], "--id: no revenue category 999999"],
      [["--business", "demo", "--id", String(foreignCategoryId), "--name", "X"], `--id: no revenue category ${foreignCategoryId}`],
      [["--business", "demo", "--id", String(categoryId), "--name", "Memberships"], `--name: category ${otherCategoryId} is already named "Memberships"`],
      [["--business", "demo", "--id", String(categoryId), "--name", "  "], "--name: the name must be 1-200 characters"],
      [["--business", "nope", "--id", String(categoryId), "--name", "X"], 'no business with subdomain "nope"']
    ]
    for (const [args, message] of cases) {
      const result = await studio("revenue-categories", "rename", ...args)
      expect(result.code, args.join(" ")).not.toBe(0)
      expect(result.stdout).toBe("")
      expect(result.stderr).toContain(`error: ${message}`)
      expect(result.stderr).not.toContain("    at ")
    }
    expect(await nameOf(categoryId)).toBe("Class packs")
    expect(await nameOf(foreignCategoryId)).toBe("Far")
  }, 120_000)
})
