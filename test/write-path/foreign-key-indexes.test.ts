import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createTestDatabase } from "../support/database.ts"
import { filesUnder, root } from "../support/source-files.ts"

/**
 * Deleting a row makes PostgreSQL look up the rows that refer to it, by the referring table's key
 * columns. Without an index leading with them, that lookup scans the business's rows (or the whole
 * table): beside a 300,000-enrollment business a booking's delete took 104 ms and a punch's 57 ms
 * (sql/migrations/0040). So every reference to a table the service deletes from has such an index.
 * The tables are read from the source (`delete from <table>`), with those their deletes cascade to.
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>
beforeAll(async () => {
  db = await createTestDatabase()
})
afterAll(async () => db?.drop())

const deletedBySource = () => {
  const tables = new Set<string>()
  for (const file of filesUnder("src", /\.ts$/)) {
    for (const match of fs.readFileSync(path.join(root, file), "utf8").matchAll(/delete from (\w+)/gi)) tables.add(match[1]!.toLowerCase())
  }
  return tables
}

it("every reference to a table the service deletes rows of is indexed on the referring side", async () => {
  const deleted = deletedBySource()
  expect(deleted.has("bookings") && deleted.has("punches"), "the source scan finds the service's deletes").toBe(true)
  const { rows: references } = await db.pool.query<{ parent: string; child: string; name: string; cascades: boolean; indexed: boolean }>(
    `select c.confrelid::regclass::text as parent, c.conrelid::regclass::text as child, c.conname as name,
            c.confdeltype = 'c' as cascades,
            exists (select 1 from pg_index i
                    where i.indrelid = c.conrelid
                      and (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] @> c.conkey
                      and (i.indkey::int2[])[0:array_length(c.conkey, 1) - 1] <@ c.conkey
                      -- a partial index serves the lookup only when the key's equality implies its predicate
                      and (i.indpred is null or pg_get_expr(i.indpred, i.indrelid) in (
                            select '(' || a.attname || ' IS NOT NULL)' from pg_attribute a
                            where a.attrelid = c.conrelid and a.attnum = any(c.conkey)))) as indexed
     from pg_constraint c
     where c.contype = 'f' and c.connamespace = 'public'::regnamespace`
  )
  // A delete cascades to the rows that refer to it with ON DELETE CASCADE: those are deleted too.
  for (let grew = true; grew;) {
    grew = false
    for (const reference of references) {
      if (reference.cascades && deleted.has(reference.parent) && !deleted.has(reference.child)) {
        deleted.add(reference.child)
        grew = true
      }
    }
  }
  const unindexed = references
    .filter((reference) => deleted.has(reference.parent) && !reference.indexed)
    .map((reference) => `${reference.child}.${reference.name} → ${reference.parent}`)
  expect(unindexed).toEqual([])
})
