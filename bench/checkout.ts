import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { postmasterPid } from "./support/cpu.ts"
import { cpuProfileFlags, freePort, SERVER_NODE_FLAGS, startBenchDatabase, startChild } from "./support/processes.ts"
import { seedBench } from "./support/seed.ts"
import { benchRun, jsonPoster, log, root } from "./support/run.ts"
import { BASE_DOMAIN, demoTenant, largeTenant, smallTenants, type Tenant } from "./support/tenants.ts"
import { best, measureRound, roundLine } from "./support/write-measure.ts"
import { createWriteBaselines } from "./support/write-baselines.ts"
import { countersLines, startPgCounters } from "./support/pg-counters.ts"

/**
 * `npm run bench:checkout`: one checkout is `POST /api/v2/desk/invoices` (a payer and one pack
 * product) then `POST .../payments` with cash for the total (the close sells the pack: plan,
 * holder, recipient), BENCH_CONCURRENCY at a time, against the service in its own process
 * (bench/support/serve.ts).
 *
 * Baseline, in the same run on the same database at the same concurrency: `select
 * bench_checkout(...)` (bench/support/write-baselines.ts), the same rows written by one database
 * function in one round trip. Rounds alternate (baseline, service, baseline, service), the better
 * of each side's two counted. Per checkout: round trips and foreign-key checks from
 * pg_stat_statements, PostgreSQL's and the API's CPU from /proc. On the bench's `demo` business
 * and, unless BENCH_LARGE_ENROLLMENTS=0, on a business of BENCH_LARGE_ENROLLMENTS enrollments
 * (default 1,000,000). Then the same checkouts all in one business against spread over ten
 * (the invoice-number counter is one row per business).
 *
 * The floor, in the same run in the demo business: the same checkouts through
 * bench/support/floor-write.ts, two POSTs decoded with the service's schemas on the smallest
 * Effect HttpApi server, the first calling `bench_checkout`, the second answering without a
 * statement. The service cannot pass it: `checkout_floor_vs_sql` says where the target sits. A second floor
 * server makes the same two requests with the service's reads and rules, one database function per request
 * (`bench_invoice_rules`, `bench_pay_rules`): `checkout_rules_floor_vs_sql` is what a rewrite of the checkout's
 * rules into the database could reach.
 *
 * Each of those four rounds also counts, per checkout, WAL, MultiXacts, the row locks written to WAL by
 * table and the backends' wait events (bench/support/pg-counters.ts), printed under the two rows.
 *
 * Last lines: `ratio checkout_vs_sql`, `ratio checkout_floor_vs_sql`, `ratio checkout_rules_floor_vs_sql`, `ratio checkout_vs_sql_large`,
 * `ratio checkout_one_vs_ten_businesses`.
 * BENCH_ONE_VS_TEN_ONLY=1 runs only the one-against-ten rounds; BENCH_ONE_VS_TEN_SQL=1 makes their checkouts
 * the one-round-trip SQL ones (what one business shares in PostgreSQL, without the API).
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the service there. BENCH_STATEMENTS=1 prints after each round
 * its costliest statements per operation (execution, lock waits included, and planning) and what the backends waited on.
 * BENCH_PG_SETTINGS="name=value ..." starts the bench's PostgreSQL with those settings (an experiment's).
 * BENCH_ANALYZE=1 runs `vacuum (analyze)` after the warm-up rounds, as a live database's autovacuum would: the tables are
 * small then and grow through the run, so the plans the database functions keep after five calls depend on it (docs/benchmarks.md,
 * "the floors and the statistics").
 * BENCH_CHECKOUTS (per round, default 600), BENCH_CONCURRENCY (default 8), BENCH_PEOPLE (payers per business, default 200).
 */
const CHECKOUTS = Number(process.env.BENCH_CHECKOUTS ?? 600)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 200)
const LARGE_ENROLLMENTS = Number(process.env.BENCH_LARGE_ENROLLMENTS ?? 1_000_000)
const ONE_VS_TEN_ONLY = process.env.BENCH_ONE_VS_TEN_ONLY === "1"
const ONE_VS_TEN_SQL = process.env.BENCH_ONE_VS_TEN_SQL === "1"
const PRICE_CENTS = 12000

const run = benchRun("bench-checkout")
const { benchDir, dataDir } = run

/** What a tenant sells in the bench: one pack product, and payers. */
const shopOf = async (pool: pg.Pool, tenant: Tenant) => {
  const { rows: [product] } = await pool.query(
    `insert into plan_products (business_id, kind, name, description, price_cents, count, commitment_length, commitment_unit)
     values ($1, 'pack', 'Bench Pack', 'Ten classes', $2, 10, 3, 'month') returning id`,
    [tenant.businessId, PRICE_CENTS]
  )
  const { rows } = await pool.query(
    `insert into people (business_id, first_name, last_name, email)
     select $1, 'Bench', 'Payer ' || g, 'payer' || g || '@bench.test' from generate_series(1, $2) g returning id`,
    [tenant.businessId, PEOPLE]
  )
  return { tenant, productId: Number(product.id), payers: rows.map((row: { id: string }) => Number(row.id)), post: jsonPoster(CONCURRENCY, tenant.host) }
}
type Shop = Awaited<ReturnType<typeof shopOf>>

const main = async () => {
  const loadBefore = os.loadavg()[0]!
  fs.rmSync(benchDir, { recursive: true, force: true })
  log(`PostgreSQL: starting (${dataDir})`)
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (run.postgres = server))
  const seed = await seedBench(databaseUrl)
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONCURRENCY + 2 })
  pool.on("error", () => {})
  await createWriteBaselines(pool)
  const tenants: Array<Tenant> = [await demoTenant(pool, seed)]
  if (LARGE_ENROLLMENTS > 0 && !ONE_VS_TEN_ONLY) tenants.push(await largeTenant(databaseUrl, pool, LARGE_ENROLLMENTS))
  const shops = await Promise.all(tenants.map((tenant) => shopOf(pool, tenant)))
  const ten = await Promise.all((await smallTenants(pool, 10)).map((tenant) => shopOf(pool, tenant)))
  // The check at the end looks at the checkouts' invoices only: the large business's seed has open ones of its own.
  const { rows: [seeded] } = await pool.query(`select coalesce(max(id), 0)::bigint as id from invoices`)

  const servicePort = await freePort(40000, 49999)
  run.service = await startChild(
    "service",
    path.join(root, "bench/support/serve.ts"),
    { DATABASE_URL: databaseUrl, PORT: String(servicePort), BASE_DOMAIN, DATA_DIR: benchDir },
    [...SERVER_NODE_FLAGS, ...cpuProfileFlags()]
  )
  const startFloor = async (name: string, functions: string, flags: ReadonlyArray<string>) =>
    startChild(name, path.join(root, "bench/support/floor-write.ts"), {
      DATABASE_URL: databaseUrl,
      PORT: String(await freePort(40000, 49999)),
      BUSINESS_ID: String(shops[0]!.tenant.businessId),
      STAFF_MEMBER_ID: String(shops[0]!.tenant.staffMemberId),
      CHECKOUT_FUNCTIONS: functions,
      DATA_DIR: benchDir,
      LOG_LEVEL: "none"
    }, flags)
  run.floor = await startFloor("floor", "one", [...SERVER_NODE_FLAGS, ...cpuProfileFlags("floor")])
  run.rulesFloor = await startFloor("rules-floor", "rules", SERVER_NODE_FLAGS)
  const postmaster = postmasterPid(dataDir)
  const apiPid = run.service.process.pid
  const floorPort = run.floor.port
  const floorPid = run.floor.process.pid
  const rulesFloorPort = run.rulesFloor.port
  const rulesFloorPid = run.rulesFloor.process.pid

  // One checkout through a server: the service (the tenant's token) or the floor (no token).
  const checkoutAt = (port: number, who: string) => async (shop: Shop, i: number) => {
    const token = port === servicePort ? shop.tenant.token : ""
    const payer = shop.payers[i % shop.payers.length]!
    const created = await shop.post(port, token, "/api/v2/desk/invoices", { invoice: { payer_id: payer, plan_products: [{ id: shop.productId }] } })
    if (created.status !== 201) throw new Error(`${who}'s invoice answered ${created.status}: ${created.text}`)
    const invoice = JSON.parse(created.text).invoices[0] as { id: number; total_cents: number }
    const paid = await shop.post(port, token, `/api/v2/desk/invoices/${invoice.id}/payments`, {
      payment: { payment_method: "cash", amount_cents: invoice.total_cents }
    })
    if (paid.status !== 201) throw new Error(`${who}'s payment answered ${paid.status}: ${paid.text}`)
  }
  const checkout = checkoutAt(servicePort, "the service")
  const checkoutOnFloor = checkoutAt(floorPort, "the floor")
  const checkoutOnRulesFloor = checkoutAt(rulesFloorPort, "the floor with the rules")
  const checkoutInSql = (shop: Shop, i: number) =>
    pool.query(`select bench_checkout($1, $2, $3)`, [shop.tenant.businessId, shop.payers[i % shop.payers.length], shop.productId]).then(() => {})
  const round = (task: (i: number) => Promise<void>, count = CHECKOUTS, pid = apiPid) =>
    measureRound({ pool, postmaster, apiPid: pid, count, concurrency: CONCURRENCY, task })

  const lines: Array<string> = []
  const ratios: Array<string> = []
  for (const shop of ONE_VS_TEN_ONLY ? [] : shops) {
    log(`${shop.tenant.label}: ${CHECKOUTS} checkouts per round, ${CONCURRENCY} at a time`)
    await round((i) => checkout(shop, i), 100)
    await round((i) => checkoutInSql(shop, i), 100)
    // The floors (demo business only) run after each service round, against the same SQL rounds.
    const onFloor = () => (shop === shops[0] ? round((i) => checkoutOnFloor(shop, i), CHECKOUTS, floorPid) : Promise.resolve(undefined))
    const onRulesFloor = () =>
      shop === shops[0] ? round((i) => checkoutOnRulesFloor(shop, i), CHECKOUTS, rulesFloorPid) : Promise.resolve(undefined)
    if (shop === shops[0]) {
      await round((i) => checkoutOnFloor(shop, i), 100, floorPid)
      await round((i) => checkoutOnRulesFloor(shop, i), 100, rulesFloorPid)
    }
    if (process.env.BENCH_ANALYZE === "1") await pool.query("vacuum (analyze)")
    const sql1 = await round((i) => checkoutInSql(shop, i))
    const api1 = await round((i) => checkout(shop, i))
    const floor1 = await onFloor()
    const rules1 = await onRulesFloor()
    const sql2 = await round((i) => checkoutInSql(shop, i))
    const api2 = await round((i) => checkout(shop, i))
    const floor2 = await onFloor()
    const rules2 = await onRulesFloor()
    const sql = best(sql1, sql2)
    const api = best(api1, api2)
    lines.push(shop.tenant.label, roundLine("  one-round-trip SQL checkout", sql), roundLine("  invoice + cash payment (2 POSTs)", api))
    lines.push(`  ratio ${(api.perSecond / sql.perSecond).toFixed(3)} (rounds: SQL ${sql1.perSecond.toFixed(0)}, ${sql2.perSecond.toFixed(0)}; API ${api1.perSecond.toFixed(0)}, ${api2.perSecond.toFixed(0)})`)
    ratios.push(`ratio ${shop === shops[0] ? "checkout_vs_sql" : "checkout_vs_sql_large"} ${(api.perSecond / sql.perSecond).toFixed(3)}`)
    if (floor1 && floor2) {
      const floor = best(floor1, floor2)
      lines.push(roundLine("  floor: bench_checkout behind HttpApi", floor))
      lines.push(`  floor ratio ${(floor.perSecond / sql.perSecond).toFixed(3)} (rounds: ${floor1.perSecond.toFixed(0)}, ${floor2.perSecond.toFixed(0)})`)
      ratios.push(`ratio checkout_floor_vs_sql ${(floor.perSecond / sql.perSecond).toFixed(3)}`)
    }
    if (rules1 && rules2) {
      const rules = best(rules1, rules2)
      lines.push(roundLine("  the rules too: bench_invoice_rules, bench_pay_rules", rules))
      lines.push(`  rules floor ratio ${(rules.perSecond / sql.perSecond).toFixed(3)} (rounds: ${rules1.perSecond.toFixed(0)}, ${rules2.perSecond.toFixed(0)})`)
      ratios.push(`ratio checkout_rules_floor_vs_sql ${(rules.perSecond / sql.perSecond).toFixed(3)}`)
    }
  }

  log(`one business against ten: ${CHECKOUTS} checkouts per round`)
  await round((i) => checkout(ten[i % ten.length]!, i), 100)
  if (process.env.BENCH_ANALYZE === "1") await pool.query("vacuum (analyze)")
  const counted = async (task: (i: number) => Promise<void>) => {
    const finish = await startPgCounters(pool)
    const measured = await round(task)
    return { ...measured, counters: await finish(CHECKOUTS) }
  }
  const oneVsTen = ONE_VS_TEN_SQL ? checkoutInSql : checkout
  const one1 = await counted((i) => oneVsTen(ten[0]!, i))
  const spread1 = await counted((i) => oneVsTen(ten[i % ten.length]!, i))
  const one2 = await counted((i) => oneVsTen(ten[0]!, i))
  const spread2 = await counted((i) => oneVsTen(ten[i % ten.length]!, i))
  const one = best(one1, one2)
  const spread = best(spread1, spread2)
  lines.push(
    "one business against ten",
    roundLine("  all in one business", one),
    roundLine("  round-robin over ten businesses", spread),
    ...countersLines("one business, round 1", one1.counters),
    ...countersLines("one business, round 2", one2.counters),
    ...countersLines("ten businesses, round 1", spread1.counters),
    ...countersLines("ten businesses, round 2", spread2.counters)
  )
  ratios.push(`ratio checkout_one_vs_ten_businesses${ONE_VS_TEN_SQL ? "_sql" : ""} ${(one.perSecond / spread.perSecond).toFixed(3)}`)

  // Every checkout closed its invoice, sold its plan and balanced its payments (the invoices after the seeds').
  const { rows: [check] } = await pool.query(
    `select count(*) filter (where i.state <> 'closed')::int as open,
            count(*) filter (where not exists (select 1 from invoice_item_recipients r join invoice_items t on t.business_id = r.business_id and t.id = r.invoice_item_id
                                               where t.invoice_id = i.id and r.plan_id is not null))::int as without_plan,
            count(*) filter (where i.total_cents <> (select coalesce(sum(p.amount_cents), 0) from payments p
                                                     where p.business_id = i.business_id and p.invoice_id = i.id and p.state = 'settled'))::int as unbalanced
     from invoices i where i.business_id = any($1) and i.id > $2`,
    [[...shops, ...ten].map((shop) => shop.tenant.businessId), seeded.id]
  )
  if (check.open + check.without_plan + check.unbalanced > 0) throw new Error(`checkouts left ${JSON.stringify(check)}`)

  process.stdout.write([
    "",
    `bench:checkout — ${CHECKOUTS} checkouts per round, concurrency ${CONCURRENCY}, ${os.cpus().length} CPUs, load ${loadBefore.toFixed(2)} before`,
    ...lines,
    ...ratios,
    ""
  ].join("\n"))
  await pool.end()
}

main()
  .then(run.cleanUp)
  .catch(async (error) => {
    log(String(error instanceof Error ? error.stack : error))
    if (run.service) log(run.service.stderr())
    await run.cleanUp()
    process.exit(1)
  })
