import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { freePort, startBenchDatabase, startChild } from "./support/processes.ts"
import { seedBench } from "./support/seed.ts"
import { benchRun, jsonPoster, log, root } from "./support/run.ts"

/**
 * `npm run bench:checkout`: checkouts per second through the API. One checkout is
 * POST /api/v2/desk/invoices (a payer and one pack product: token, tenancy, decoding, the
 * invoice number, item, recipient, the totals recompute) then POST .../payments with cash for the
 * total (the invoice's lock, the outstanding amount, the payment row, the close that creates the
 * person plan and its events), BENCH_CONCURRENCY clients at a time over keep-alive connections,
 * with the owner's token, against the service in its own process (bench/support/serve.ts).
 *
 * Baseline, measured in the same run on the same database at the same concurrency: a bare SQL
 * loop through pg writing the same rows per checkout in one transaction (the invoice number, a
 * closed invoice with its totals, the item, its recipient, the cash payment, the plan and its
 * person). What the service adds per checkout is the ratio. Rounds alternate (baseline, service,
 * baseline, service) so a drift of the machine hits both.
 *
 * BENCH_DURATION (seconds per round, default 15), BENCH_CONCURRENCY (default 8), BENCH_PEOPLE
 * (payers, round-robin, default 200).
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 15)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 200)
const PRICE_CENTS = 12000
const BASE_DOMAIN = "localhost"
const SERVER_NODE_FLAGS = ["--max-semi-space-size=16", "--heap-growing-percent=50", "--no-allocation-site-pretenuring"]

const run = benchRun("bench-checkout")
const { benchDir, dataDir } = run
const post = jsonPoster(CONCURRENCY, `demo.${BASE_DOMAIN}`)

/**
 * Runs `task(i, worker)` with `CONCURRENCY` workers until `seconds` have passed; answers the
 * checkouts per second and the checkout latencies (ms).
 */
const timed = async (seconds: number, task: (i: number, worker: number) => Promise<void>) => {
  let next = 0
  const latencies: Array<number> = []
  const started = performance.now()
  const deadline = started + seconds * 1000
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, worker) => {
    while (performance.now() < deadline) {
      const at = performance.now()
      await task(next++, worker)
      latencies.push(performance.now() - at)
    }
  }))
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return { count: latencies.length, seconds: elapsed, p50: quantile(0.5), p99: quantile(0.99) }
}

const main = async () => {
  const loadBefore = os.loadavg()[0]!
  fs.rmSync(benchDir, { recursive: true, force: true })
  log(`PostgreSQL: starting (${dataDir})`)
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (run.postgres = server))
  const seed = await seedBench(databaseUrl)
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONCURRENCY + 2 })
  pool.on("error", () => {})
  const businessId = seed.businessId
  const one = async (text: string, values: Array<unknown> = []) => (await pool.query(text, values)).rows

  const [product] = await one(
    `insert into plan_products (business_id, kind, name, description, price_cents, count, commitment_length, commitment_unit)
     values ($1, 'pack', 'Bench Pack', 'Ten classes', $2, 10, 3, 'month') returning id, name, description`,
    [businessId, PRICE_CENTS]
  )
  const productId = Number(product.id)
  const people = (await one(
    `insert into people (business_id, first_name, last_name, email)
     select $1, 'Bench', 'Payer ' || g, 'payer' || g || '@bench.test' from generate_series(1, $2) g returning id`,
    [businessId, PEOPLE]
  )).map((row: { id: string }) => Number(row.id))
  const [business] = await one(`select currency_code from businesses where id = $1`, [businessId])

  const servicePort = await freePort(40000, 49999)
  run.service = await startChild(
    "service",
    path.join(root, "bench/support/serve.ts"),
    { DATABASE_URL: databaseUrl, PORT: String(servicePort), BASE_DOMAIN, DATA_DIR: benchDir },
    SERVER_NODE_FLAGS
  )

  const checkout = async (i: number) => {
    const payer = people[i % people.length]!
    const created = await post(servicePort, seed.token, "/api/v2/desk/invoices", { invoice: { payer_id: payer, plan_products: [{ id: productId }] } })
    if (created.status !== 201) throw new Error(`invoice answered ${created.status}: ${created.text}`)
    const invoice = JSON.parse(created.text).invoices[0] as { id: number; total_cents: number }
    const paid = await post(servicePort, seed.token, `/api/v2/desk/invoices/${invoice.id}/payments`, {
      payment: { payment_method: "cash", amount_cents: invoice.total_cents }
    })
    if (paid.status !== 201) throw new Error(`payment answered ${paid.status}: ${paid.text}`)
  }

  // The baseline's connections: one client per worker, held for the whole run.
  const clients = await Promise.all(Array.from({ length: CONCURRENCY }, () => pool.connect()))
  const bareCheckout = async (i: number, worker: number) => {
    const client = clients[worker]!
    const payer = people[i % people.length]!
    await client.query("begin")
    try {
      const [number] = (await client.query(
        `insert into invoice_numbers (business_id, last_number) values ($1, 1)
         on conflict (business_id) do update set last_number = invoice_numbers.last_number + 1 returning last_number`,
        [businessId]
      )).rows
      const [invoice] = (await client.query(
        `insert into invoices (business_id, invoice_number, state, invoice_date, person_id, currency, closed_at,
                               subtotal_cents, total_cents, created_at, updated_at)
         values ($1, $2, 'closed', current_date, $3, $4, now(), $5, $5, now(), now()) returning id`,
        [businessId, `B${number.last_number}`, payer, business.currency_code, PRICE_CENTS]
      )).rows
      const [item] = (await client.query(
        `insert into invoice_items (business_id, invoice_id, kind, plan_product_id, name, description, price_cents, total_cents)
         values ($1, $2, 'plan', $3, $4, $5, $6, $6) returning id`,
        [businessId, invoice.id, productId, product.name, product.description, PRICE_CENTS]
      )).rows
      await client.query(
        `insert into payments (business_id, invoice_id, person_id, payment_method, payment_type_id, state, amount_cents, description, created_at, updated_at)
         values ($1, $2, $3, 'cash', 2, 'settled', $4, 'Cash', now(), now())`,
        [businessId, invoice.id, payer, PRICE_CENTS]
      )
      const [plan] = (await client.query(
        `insert into plans (business_id, plan_product_id, type, name, description, price_cents, count, visits_shared, start_date, end_date, created_at, updated_at)
         values ($1, $2, 'Pack', $3, $4, $5, 10, true, current_date, (current_date + interval '3 months')::date - 1, now(), now()) returning id`,
        [businessId, productId, product.name, product.description, PRICE_CENTS]
      )).rows
      await client.query(`insert into plan_people (business_id, plan_id, person_id, is_primary) values ($1, $2, $3, true)`, [businessId, plan.id, payer])
      await client.query(
        `insert into invoice_item_recipients (business_id, invoice_item_id, person_id, plan_id) values ($1, $2, $3, $4)`,
        [businessId, item.id, payer, plan.id]
      )
      await client.query("commit")
    } catch (error) {
      await client.query("rollback")
      throw error
    }
  }

  // Warm-up: the service's first requests compile and connect; the baseline's statements too.
  log("warm-up")
  await timed(Math.min(5, DURATION), (i) => checkout(i))
  await timed(Math.min(2, DURATION), (i, worker) => bareCheckout(i, worker))

  log(`${DURATION} s per round, ${CONCURRENCY} clients, two rounds each`)
  const rounds = { service: [] as Array<Awaited<ReturnType<typeof timed>>>, baseline: [] as Array<Awaited<ReturnType<typeof timed>>> }
  for (let round = 0; round < 2; round++) {
    rounds.baseline.push(await timed(DURATION, (i, worker) => bareCheckout(i, worker)))
    rounds.service.push(await timed(DURATION, (i) => checkout(i)))
  }
  for (const client of clients) client.release()

  // Every service checkout closed its invoice and sold its plan.
  const [check] = await one(
    `select count(*) filter (where i.state <> 'closed')::int as open,
            count(*) filter (where not exists (select 1 from invoice_item_recipients r join invoice_items t on t.business_id = r.business_id and t.id = r.invoice_item_id
                                               where t.invoice_id = i.id and r.plan_id is not null))::int as without_plan,
            count(*) filter (where i.total_cents <> (select coalesce(sum(p.amount_cents), 0) from payments p
                                                     where p.business_id = i.business_id and p.invoice_id = i.id and p.state = 'settled'))::int as unbalanced
     from invoices i where i.business_id = $1`,
    [businessId]
  )
  if (check.open + check.without_plan + check.unbalanced > 0) throw new Error(`checkouts left ${JSON.stringify(check)}`)

  const rate = (list: Array<{ count: number; seconds: number }>) => list.reduce((a, r) => a + r.count, 0) / list.reduce((a, r) => a + r.seconds, 0)
  const service_ = rate(rounds.service)
  const baseline = rate(rounds.baseline)
  const last = (list: Array<{ p50: number; p99: number }>) => list[list.length - 1]!
  const fmt = (n: number, width = 8) => n.toFixed(0).padStart(width)
  const lines = [
    "",
    `bench:checkout — ${DURATION} s × 2 rounds each, concurrency ${CONCURRENCY}, ${os.cpus().length} CPUs, load ${loadBefore.toFixed(2)} before`,
    "target                         checkouts/s   p50 ms   p99 ms",
    `service (invoice + cash pay)   ${fmt(service_)}     ${fmt(last(rounds.service).p50, 5)}    ${fmt(last(rounds.service).p99, 5)}`,
    `bare SQL loop (1 tx each)      ${fmt(baseline)}     ${fmt(last(rounds.baseline).p50, 5)}    ${fmt(last(rounds.baseline).p99, 5)}`,
    `ratio service / baseline       ${(service_ / baseline).toFixed(3)}`,
    `per round (checkouts/s): service ${rounds.service.map((r) => (r.count / r.seconds).toFixed(0)).join(", ")}; baseline ${rounds.baseline.map((r) => (r.count / r.seconds).toFixed(0)).join(", ")}`,
    ""
  ]
  process.stdout.write(lines.join("\n"))
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
