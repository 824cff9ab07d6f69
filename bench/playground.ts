import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import pg from "pg"
import { type Browser, type Page, chromium } from "playwright-core"
import { readCurrent } from "../reports/sync/generations.ts"
import { syncReports } from "../reports/sync/sync.ts"
import { hashPassword } from "../src/access/passwords.ts"
import type { EmbeddedServer } from "../src/platform/embedded-postgres.ts"
import { createToken } from "../test/support/factories.ts"
import { chromiumArgs, ensureChromium } from "../test/support/chromium.ts"
import { type Child, freePort, startBenchDatabase, startChild } from "./support/processes.ts"

/**
 * `npm run bench:playground`: the reports playground's "Run" in Chromium against the raw API.
 * Seeds BENCH_ENROLLMENTS (default 1,000,000) enrollments with `studio seed scale` over
 * BENCH_BUSINESSES (default 1, so the one business's query reads every row), syncs the store,
 * signs the owner in through the OAuth pages, then times, after warm-up, BENCH_RUNS (default 15)
 * runs of a grouped query (enrollments by service month) on each side:
 * - page: from the click on Run to the table drawn (the next animation frame after the rows are in the DOM);
 * - api: the same request (body and headers as the page sends them) from this process over keep-alive HTTP.
 * Prints both medians and, last, `ratio playground_run_vs_api <page / api>`.
 * `BENCH_REUSE=1` keeps an earlier run's database and store.
 */
const ENROLLMENTS = Number(process.env.BENCH_ENROLLMENTS ?? 1_000_000)
const BUSINESSES = Number(process.env.BENCH_BUSINESSES ?? 1)
const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const WARM_UP = 5
const REUSE = process.env.BENCH_REUSE === "1"
const BASE_DOMAIN = "localhost"
const PASSWORD = "bench-playground-pass"

const root = path.resolve(import.meta.dirname, "..")
const benchDir = path.join(root, ".data/bench-playground")
const dataDir = path.join(benchDir, "postgres")
const reportsDir = path.join(benchDir, "reports")

const QUERY = {
  resource: "enrollments",
  fields: ["enrollment_count", "person_count", "total_visits_amount"],
  group: "service_month_start_date",
  filter: null,
  sort: ["group_label+"],
  limit: 500
}

const log = (message: string) => process.stderr.write(`${message}\n`)
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const post = (agent: http.Agent, port: number, host: string, token: string, body: string) =>
  new Promise<number>((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path: `/desk/api/v3/reports/${QUERY.resource}/queries`,
        method: "POST",
        agent,
        headers: { host, authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json", accept: "application/vnd.api+json", "content-length": Buffer.byteLength(body) }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const json = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          if (response.statusCode !== 200) reject(new Error(`the API answered ${response.statusCode}: ${JSON.stringify(json)}`))
          else resolve(json.data.attributes.rows.length)
        })
      }
    )
    request.on("error", reject)
    request.end(body)
  })

let postgres: EmbeddedServer | undefined
const children: Array<Child> = []

const seed = (databaseUrl: string) => {
  log(`seeding ${ENROLLMENTS.toLocaleString("en")} enrollments over ${BUSINESSES} business(es) (studio seed scale)`)
  const seeded = spawnSync(process.execPath, [path.join(root, "src/cli.ts"), "seed", "scale", "--enrollments", String(ENROLLMENTS), "--businesses", String(BUSINESSES)], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "error" },
    encoding: "utf8",
    maxBuffer: 10_000_000
  })
  if (seeded.status !== 0) throw new Error(`seed scale failed:\n${seeded.stderr}`)
}

interface Owner {
  readonly businessId: number
  readonly subdomain: string
  readonly email: string
  /** A token made directly, for half the API runs (the other half use the page's own). */
  readonly apiToken: string
}

/** The seeded (or reused) database and store, and the largest business's owner, who gets a password. */
const prepare = async () => {
  const reusing = REUSE && fs.existsSync(path.join(dataDir, "PG_VERSION")) && readCurrent(reportsDir) !== undefined
  if (!reusing) fs.rmSync(benchDir, { recursive: true, force: true })
  const { databaseUrl } = await startBenchDatabase(dataDir, (server) => (postgres = server))
  if (!reusing) {
    const started = performance.now()
    seed(databaseUrl)
    log(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s; syncing the report store`)
    await syncReports({ databaseUrl, dir: reportsDir, mode: "full" })
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })
  pool.on("error", () => {})
  try {
    const { rows: [largest] } = await pool.query(
      `select b.id, b.subdomain, p.account_id, a.email
       from businesses b
       join staff_members s on s.business_id = b.id and s.role = 'primary_owner'
       join people p on p.business_id = s.business_id and p.id = s.person_id
       join accounts a on a.id = p.account_id
       where b.subdomain like 'scale-%'
       order by (select count(*) from visits v where v.business_id = b.id) desc limit 1`
    )
    await pool.query("update accounts set password_hash = $2 where id = $1", [largest.account_id, await hashPassword(PASSWORD)])
    const owner: Owner = {
      businessId: Number(largest.id),
      subdomain: largest.subdomain,
      email: largest.email,
      apiToken: await createToken(pool, Number(largest.account_id), Number(largest.id))
    }
    return { databaseUrl, owner }
  } finally {
    await pool.end()
  }
}

/** Opens the playground with the query in its link and signs in through the OAuth pages. */
const signedInPage = async (browser: Browser, pageUrl: string, email: string) => {
  const page = await browser.newPage({ locale: "en-US" })
  page.setDefaultTimeout(60_000)
  await page.goto(`${pageUrl}#q=${encodeURIComponent(JSON.stringify(QUERY))}`)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByLabel("E-mail").fill(email)
  await page.getByLabel("Password").fill(PASSWORD)
  await page.getByRole("button", { name: "Log in" }).click()
  await page.getByRole("button", { name: "Allow" }).click()
  await page.locator("#query:not([hidden])").waitFor()
  const token = await page.evaluate(() => sessionStorage.getItem("reports-playground.token"))
  if (!token) throw new Error("the playground holds no token after signing in")
  // The body exactly as the page sends it ("Copy as JSON").
  await page.getByRole("button", { name: "Copy as JSON" }).click()
  const body = JSON.stringify(JSON.parse(await page.locator("#copied-text").inputValue()).body)
  return { page, token, body }
}

let runs = 0
/** One Run in the page: from the click to the frame after the rows are in the DOM (the table drawn). */
const pageRun = (page: Page) =>
  page.evaluate(async (expected) => {
    // Runs in the page: this file is compiled without the DOM's types.
    const window = globalThis as any
    const started = window.performance.now()
    window.document.getElementById("run").click()
    await new Promise<void>((resolve) => {
      const check = () => (window.document.getElementById("results").dataset.run === String(expected) ? resolve() : window.requestAnimationFrame(check))
      check()
    })
    await new Promise((resolve) => window.requestAnimationFrame(resolve))
    return { ms: (window.performance.now() - started) as number, rows: window.document.querySelectorAll("#table tbody tr").length as number }
  }, ++runs)

/** Warm-up, then page and API runs interleaved, so that both sides see the same (shared) machine. */
const measure = async (page: Page, api: (run: number) => Promise<{ ms: number; rows: number }>) => {
  for (let i = 0; i < WARM_UP; i++) {
    await pageRun(page)
    await api(i)
  }
  const pageTimes: Array<number> = []
  const apiTimes: Array<number> = []
  for (let i = 0; i < RUNS; i++) {
    const shown = await pageRun(page)
    const answered = await api(i)
    if (shown.rows !== answered.rows) throw new Error(`the page drew ${shown.rows} rows, the API answered ${answered.rows}`)
    pageTimes.push(shown.ms)
    apiTimes.push(answered.ms)
  }
  return { pageTimes, apiTimes }
}

const spread = (times: ReadonlyArray<number>) =>
  `median ${median(times).toFixed(1)} ms over ${times.length} runs (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)})`

const main = async () => {
  const { databaseUrl, owner } = await prepare()
  const port = await freePort(40000, 49999)
  children.push(
    await startChild("service", path.join(root, "bench/support/serve.ts"), {
      DATABASE_URL: databaseUrl,
      DATA_DIR: benchDir,
      PORT: String(port),
      BASE_DOMAIN,
      LOG_LEVEL: "none",
      REPORT_RATE_LIMIT: "100000000"
    })
  )
  const host = `${owner.subdomain}.${BASE_DOMAIN}`
  // Chromium resolves *.localhost to the loopback address by itself.
  const browser = await chromium.launch({ executablePath: ensureChromium(), args: chromiumArgs() })
  try {
    const { page, token, body } = await signedInPage(browser, `http://${host}:${port}/reports`, owner.email)
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const api = async (run: number) => {
      const started = performance.now()
      const rows = await post(agent, port, host, run % 2 === 0 ? token : owner.apiToken, body)
      return { ms: performance.now() - started, rows }
    }
    const { pageTimes, apiTimes } = await measure(page, api)
    console.log(`query: ${QUERY.resource} grouped by ${QUERY.group}, ${ENROLLMENTS.toLocaleString("en")} enrollments in ${BUSINESSES} business(es)`)
    console.log(`playground Run → table drawn: ${spread(pageTimes)}`)
    console.log(`raw API request: ${spread(apiTimes)}`)
    console.log(`ratio playground_run_vs_api ${(median(pageTimes) / median(apiTimes)).toFixed(2)}`)
  } finally {
    await browser.close()
  }
}

main()
  .catch((error) => {
    log(String(error?.stack ?? error))
    process.exitCode = 1
  })
  .finally(async () => {
    for (const child of children) await child.stop().catch(() => {})
    await postgres?.stop().catch(() => {})
  })
