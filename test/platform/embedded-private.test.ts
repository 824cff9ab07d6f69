import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { removeEmbeddedCluster } from "../../src/platform/embedded-postgres.ts"
import { freePort, get, killCluster, postmasterOf, run, type Setup, startProcess, stopAll } from "../support/processes.ts"

/**
 * The README's two commands from a new user's seat: as root in a checkout under a private
 * (0700) folder, where user postgres cannot reach node_modules or the data folder, and as an
 * ordinary user. Each runs `npm start`'s script, the CLI beside it, and a request.
 */
const isRoot = process.getuid?.() === 0
const root = path.resolve(`.data/test/private-${process.pid}`)
const clusters: Array<string> = []
/** Folders outside the checkout (the ordinary user's own), removed at the end. */
const outside: Array<string> = []

afterAll(async () => {
  await stopAll()
  for (const dataDir of clusters) {
    await killCluster(dataDir)
    removeEmbeddedCluster(dataDir)
  }
  fs.rmSync(root, { recursive: true, force: true })
  for (const dir of outside) fs.rmSync(dir, { recursive: true, force: true })
})

/** The files `npm start` and the CLI run from, into `checkout`: hard links (seconds), or a copy across file systems. */
const copyCheckout = (checkout: string) => {
  const files = ["package.json", "src", "sql", "workers", "reports", "node_modules"]
  try {
    execFileSync("cp", ["-al", ...files, checkout], { stdio: "ignore" })
  } catch {
    execFileSync("cp", ["-a", ...files, checkout])
  }
}

const tour = async (setup: Setup, dataDir: string, whileRunning: () => Promise<void> = async () => {}) => {
  clusters.push(dataDir)
  const server = await startProcess(setup, ["src/main.ts"], /Studio Service is ready/)
  await whileRunning()
  const token = await run(setup, ["src/cli.ts", "token", "--business", "demo", "--email", "owner@demo.test"])
  expect(token.code, token.stderr).toBe(0)
  const answer = await get(Number(setup.env["PORT"]), "/api/v2/desk/business", {
    host: "demo.localhost",
    authorization: `Bearer ${token.stdout.trim()}`
  })
  expect(answer.status).toBe(200)
  await server.stop("SIGINT")
  expect(server.output()).not.toContain("    at ")
  expect(postmasterOf(dataDir)).toBeUndefined()
}

const ports = async () => ({ PORT: String(await freePort()), EMBEDDED_POSTGRES_PORT: String(await freePort(50000, 54999)) })

describe.skipIf(!isRoot)("embedded PostgreSQL as root", () => {
  it("works from a checkout in a 0700 folder, the cluster placed where user postgres can reach it", async () => {
    const checkout = path.join(root, "root-0700", "checkout")
    fs.mkdirSync(checkout, { recursive: true })
    fs.chmodSync(path.dirname(checkout), 0o700)
    // The same files as this checkout, with node_modules out of postgres's reach.
    copyCheckout(checkout)
    const dataDir = path.join(checkout, ".data", "postgres")
    const setup = { cwd: checkout, env: { ...(await ports()), DATA_DIR: ".data" } }
    const remove = (...flags: Array<string>) => run(setup, ["src/cli.ts", "embedded", "remove", ...flags])
    await tour(setup, dataDir, async () => {
      const busy = await remove("--yes")
      expect(busy.code).toBe(1)
      expect(busy.stderr).toMatch(/^error: .* is running .*stop `npm start`/m)
    })
    expect(fs.lstatSync(dataDir).isSymbolicLink()).toBe(true)
    const placed = fs.realpathSync(dataDir)
    expect(placed.startsWith(path.dirname(checkout))).toBe(false)

    // The README's way to take the placed cluster away again: confirmed with --yes.
    const unconfirmed = await remove()
    expect(unconfirmed.code).toBe(1)
    expect(unconfirmed.stderr).toMatch(/add --yes/)
    expect(fs.existsSync(placed)).toBe(true)
    const removed = await remove("--yes")
    expect(removed.code, removed.stderr).toBe(0)
    expect(JSON.parse(removed.stdout).removed).toContain(path.dirname(placed))
    expect(fs.existsSync(path.dirname(placed))).toBe(false)
    expect(fs.lstatSync(dataDir, { throwIfNoEntry: false })).toBeUndefined()
  }, 300_000)

  it("says in one line what to do when a cluster sits where user postgres cannot reach it", async () => {
    const dataRoot = path.join(root, "stuck-0700", "data")
    fs.mkdirSync(path.join(dataRoot, "postgres"), { recursive: true })
    fs.writeFileSync(path.join(dataRoot, "postgres", "PG_VERSION"), "18\n")
    fs.chmodSync(path.dirname(dataRoot), 0o700)
    const setup = { cwd: process.cwd(), env: { ...(await ports()), DATA_DIR: dataRoot } }
    for (const args of [["src/main.ts"], ["src/cli.ts", "token", "--email", "owner@demo.test"]]) {
      const result = await run(setup, args)
      expect(result.code).toBe(1)
      const errors = result.stderr.split("\n").filter((line) => line.startsWith("error:"))
      expect(errors).toHaveLength(1)
      expect(errors[0]).toContain("chmod o+x")
      expect(result.stderr).not.toContain("    at ")
    }
  }, 120_000)

  it("works as an ordinary user on a data folder of its own", async () => {
    // An ordinary user runs a checkout it can read, with node and a data folder of its own: this
    // checkout may sit where that user cannot go (as root in a `mktemp -d` folder, mode 0700, or
    // under /root), so the user gets a copy in a public temporary folder, as it would clone one.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "studio-nobody-"))
    outside.push(home)
    fs.chmodSync(home, 0o755)
    const checkout = path.join(home, "checkout")
    fs.mkdirSync(checkout)
    copyCheckout(checkout)
    const dataRoot = path.join(home, "data")
    fs.mkdirSync(dataRoot)
    fs.chownSync(dataRoot, 65534, 65534)
    // npm runs the project's own Node (node_modules/node): the copy's, when this one is inside the checkout.
    const inside = path.relative(process.cwd(), process.execPath)
    const node = inside.startsWith("..") || path.isAbsolute(inside) ? process.execPath : path.join(checkout, inside)
    const wrap = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    const setup = { cwd: checkout, node, env: { ...(await ports()), DATA_DIR: dataRoot, HOME: dataRoot }, wrap }
    await tour(setup, path.join(dataRoot, "postgres"))
  }, 300_000)
})
