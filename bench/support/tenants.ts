import { spawnSync } from "node:child_process"
import * as path from "node:path"
import type pg from "pg"
import { createBusiness, createPerson, createToken } from "../../test/support/factories.ts"
import { log, root } from "./run.ts"

/** A business the write benchmarks call: its host, an owner's token and staff member. */
export interface Tenant {
  readonly label: string
  readonly businessId: number
  readonly host: string
  readonly token: string
  readonly staffMemberId: number
}

export const BASE_DOMAIN = "localhost"

/** The bench's `demo` business (bench/support/seed.ts) as a tenant. */
export const demoTenant = async (pool: pg.Pool, seed: { readonly businessId: number; readonly token: string }): Promise<Tenant> => {
  const { rows: [owner] } = await pool.query(`select id from staff_members where business_id = $1 order by id limit 1`, [seed.businessId])
  return { label: "demo business", businessId: seed.businessId, host: `demo.${BASE_DOMAIN}`, token: seed.token, staffMemberId: Number(owner.id) }
}

/** Seeds one business of `enrollments` enrollments with `studio seed scale` (minutes for a million). */
export const seedScaleBusiness = (databaseUrl: string, enrollments: number) => {
  log(`seeding ${enrollments.toLocaleString("en")} enrollments in one business (studio seed scale)`)
  const seeded = spawnSync(process.execPath, [path.join(root, "src/cli.ts"), "seed", "scale", "--enrollments", String(enrollments), "--businesses", "1"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "error" },
    encoding: "utf8",
    maxBuffer: 10_000_000
  })
  if (seeded.status !== 0) throw new Error(`seed scale failed:\n${seeded.stderr}`)
}

/**
 * Vacuums and analyzes the tables autovacuum would, by its default thresholds (vacuum: more than
 * 50 rows and 20 % dead, or 1,000 rows and 20 % inserted since the last vacuum; analyze: 50 rows and
 * 10 % changed since the last analyze), and leaves the others alone. `vacuum (analyze)` of every table
 * would also size the ones the seed leaves empty (bookings, leases) at zero rows, and a plan a
 * connection caches on such a table (a foreign-key check's included) is a sequential scan that grows
 * with every row the rounds add, until the next analyze: a cost a live database does not pay
 * (docs/benchmarks.md, "plans made for a business's values").
 */
export const settleAsAutovacuumWould = async (pool: pg.Pool) => {
  const { rows } = await pool.query<{ name: string; vacuum: boolean; analyze: boolean }>(
    `select format('%I.%I', s.schemaname, s.relname) as name,
            s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) or s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) as vacuum,
            s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) as analyze
     from pg_stat_user_tables s join pg_class c on c.oid = s.relid`
  )
  for (const { name, vacuum, analyze } of rows) {
    if (vacuum) await pool.query(`vacuum ${analyze ? "(analyze) " : ""}${name}`)
    else if (analyze) await pool.query(`analyze ${name}`)
  }
}

/** The scale business (seeded by seedScaleBusiness) as a tenant. */
export const largeTenant = async (databaseUrl: string, pool: pg.Pool, enrollments: number): Promise<Tenant> => {
  seedScaleBusiness(databaseUrl, enrollments)
  // The seed leaves what autovacuum clears in a live database within minutes: dead versions of the
  // visits its punches updated and tuples without hint bits. Measured straight after it, the large
  // business's first writes paid for that cleanup (103 buffers per visit insert against 54 later).
  await settleAsAutovacuumWould(pool)
  const { rows: [business] } = await pool.query(
    `select b.id, b.subdomain, s.id as staff_member_id, p.account_id
     from businesses b join staff_members s on s.business_id = b.id and s.role = 'primary_owner'
     join people p on p.business_id = s.business_id and p.id = s.person_id
     where b.subdomain like 'scale-%' order by b.id limit 1`
  )
  const businessId = Number(business.id)
  return {
    label: `${(enrollments / 1e6).toFixed(1)} M-enrollment business`,
    businessId,
    host: `${business.subdomain}.${BASE_DOMAIN}`,
    token: await createToken(pool, Number(business.account_id), businessId),
    staffMemberId: Number(business.staff_member_id)
  }
}

/** `count` small businesses with an owner each (`bench-1` … `bench-<count>`). */
export const smallTenants = async (pool: pg.Pool, count: number): Promise<Array<Tenant>> => {
  const tenants: Array<Tenant> = []
  for (let i = 1; i <= count; i++) {
    const business = await createBusiness(pool, { subdomain: `bench-${i}`, name: `Bench Studio ${i}` })
    const owner = await createPerson(pool, business.id, { email: `owner@bench-${i}.test`, role: "owner" })
    tenants.push({
      label: `bench-${i}`,
      businessId: business.id,
      host: `bench-${i}.${BASE_DOMAIN}`,
      token: await createToken(pool, owner.accountId, business.id),
      staffMemberId: owner.staffMemberId!
    })
  }
  return tenants
}
