import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { restartDelay } from "../../src/platform/cluster.ts"
import { createTestDatabase } from "../support/database.ts"
import { freePort, get, type LongRunning, startProcess, stopAll } from "../support/processes.ts"

/**
 * `studio serve --processes 2`: a primary and two HTTP processes on one port, as separate OS
 * processes; a killed one is replaced, and SIGTERM stops them all in order.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>
let port: number
let primary: LongRunning

const childPids = (output: string) =>
  [...output.matchAll(/"message":"http process listening".*?"pid":(\d+)/g)].map((match) => Number(match[1]))
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const waitFor = async (condition: () => boolean, what: string) => {
  const deadline = Date.now() + 60_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}:\n${primary.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
const health = () => get(port, "/healthz", { host: "localhost" })

beforeAll(async () => {
  database = await createTestDatabase()
  port = await freePort()
  primary = await startProcess(
    { cwd: process.cwd(), env: { DATABASE_URL: database.url, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: ".data/test" } },
    ["src/cli.ts", "serve", "--processes", "2"],
    /http processes listening/
  )
}, 180_000)

afterAll(async () => {
  await stopAll()
  await database?.drop()
})

describe("studio serve --processes 2", () => {
  it("serves from two processes on one port, replaces one killed with SIGKILL, and stops all on SIGTERM", async () => {
    const first = childPids(primary.output())
    expect(first).toHaveLength(2)
    for (let i = 0; i < 6; i++) expect((await health()).status).toBe(200)

    process.kill(first[0]!, "SIGKILL")
    await waitFor(() => childPids(primary.output()).length === 3, "a replacement process")
    expect(primary.output()).toContain("http process exited, replacing it")
    const replacement = childPids(primary.output())[2]!
    expect(first).not.toContain(replacement)
    for (let i = 0; i < 6; i++) expect((await health()).status).toBe(200)

    // It exits by itself (130: ended by a signal, as a single `studio serve` does), not by SIGKILL.
    expect([0, 130]).toContain(await primary.stop("SIGTERM"))
    for (const pid of [first[1]!, replacement]) expect(alive(pid)).toBe(false)
    await expect(health()).rejects.toThrow()
  }, 120_000)
})

describe("the restart back-off", () => {
  it("replaces at once after a long life, then doubles the delay for each quick death in a row, up to 30 s", () => {
    expect([0, 1, 2, 3, 8, 20].map(restartDelay)).toEqual([0, 250, 500, 1_000, 30_000, 30_000])
  })
})
