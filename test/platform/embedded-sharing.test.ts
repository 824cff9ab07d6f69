import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { removeEmbeddedCluster } from "../../src/platform/embedded-postgres.ts"
import { freePort, get, killCluster, postmasterOf, run, type Setup, startProcess, stopAll } from "../support/processes.ts"

/**
 * `npm start` and the operator CLI on one DATA_DIR with the embedded PostgreSQL, each a process,
 * as in the README's tour: whichever comes first starts the cluster, the other joins it, and
 * the last one out stops it.
 */
const root = path.resolve(`.data/test/sharing-${process.pid}`)
const dataDir = path.join(root, "data")
let setup: Setup
let httpPort: number

const READY = /Studio Service is ready/
const ownerToken = async () => {
  const result = await run(setup, ["src/cli.ts", "token", "--business", "demo", "--email", "owner@demo.test"])
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout).toMatch(/^[A-Za-z0-9_-]{43}\n$/)
  return result.stdout.trim()
}
const deskBusiness = (token: string) => get(httpPort, "/api/v2/desk/business", { host: "demo.localhost", authorization: `Bearer ${token}` })

beforeAll(async () => {
  fs.rmSync(root, { recursive: true, force: true })
  fs.mkdirSync(root, { recursive: true })
  httpPort = await freePort()
  const pgPort = await freePort(50000, 54999)
  setup = { cwd: process.cwd(), env: { DATA_DIR: dataDir, PORT: String(httpPort), EMBEDDED_POSTGRES_PORT: String(pgPort) } }
})

afterAll(async () => {
  await stopAll()
  await killCluster(path.join(dataDir, "postgres"))
  removeEmbeddedCluster(path.join(dataDir, "postgres"))
  fs.rmSync(root, { recursive: true, force: true })
})

describe("embedded PostgreSQL shared by npm start and the CLI", () => {
  it("runs every CLI command beside a running npm start, which keeps serving and stops the cluster when it is alone", async () => {
    const server = await startProcess(setup, ["src/main.ts"], READY)
    const token = await ownerToken()
    const cli = (...args: Array<string>) => run(setup, ["src/cli.ts", ...args])
    const results = await Promise.all([
      cli("app", "create", "--name", "Aggregator", "--redirect-uri", "https://agg.example/callback"),
      cli("business", "create", "--subdomain", "other", "--name", "Other", "--owner-email", "o@other.test"),
      cli("webhooks", "enable", "--business", "demo"),
      cli("reports", "grant", "--business", "demo", "--email", "manager@demo.test"),
      cli("sync"),
      cli("seed", "demo"),
      cli("jobs", "list")
    ])
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).not.toContain("    at ")
    }
    expect((await deskBusiness(token)).status).toBe(200)
    expect(postmasterOf(path.join(dataDir, "postgres"))).toBeDefined()

    await server.stop("SIGINT")
    expect(postmasterOf(path.join(dataDir, "postgres"))).toBeUndefined()
  }, 300_000)

  it("starts npm start beside a CLI command holding the cluster, and keeps it when that command exits first", async () => {
    const worker = await startProcess(setup, ["src/cli.ts", "worker"], /worker started/)
    expect(worker.output()).toContain("embedded PostgreSQL started")
    const server = await startProcess(setup, ["src/main.ts"], READY)
    expect(server.output()).toContain("joined the embedded PostgreSQL already running")

    await worker.stop("SIGTERM")
    const token = await ownerToken()
    expect((await deskBusiness(token)).status).toBe(200)

    await server.stop("SIGINT")
    expect(postmasterOf(path.join(dataDir, "postgres"))).toBeUndefined()
  }, 300_000)

  it("lets two commands started at once on a stopped cluster both succeed (the loser of the start joins)", async () => {
    const [first, second] = await Promise.all([ownerToken(), ownerToken()])
    expect(first).not.toBe(second)
    expect(postmasterOf(path.join(dataDir, "postgres"))).toBeUndefined()
  }, 300_000)
})
