import { execFile } from "node:child_process"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

/**
 * CI trusts `npm test`'s exit code. The embedded PostgreSQL's shutdown hooks once answered
 * `beforeExit` with `process.exit(0)`, so a run with failing tests exited 0: a failing test,
 * run with the suite's own global setup, must make vitest exit non-zero.
 */
describe("the test command's exit code", () => {
  it("is not 0 when a test fails", async () => {
    const root = path.resolve(import.meta.dirname, "../..")
    const env: Record<string, string> = { ...(process.env as Record<string, string>) }
    delete env["VITEST"]
    delete env["VITEST_WORKER_ID"]
    delete env["VITEST_POOL_ID"]
    const code = await new Promise<number | null>((resolve) => {
      const child = execFile(
        process.execPath,
        [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--config", "test/support/exit-code/vitest.config.ts"],
        { cwd: root, env, timeout: 120_000 },
        () => {}
      )
      child.on("exit", (exitCode) => resolve(exitCode))
    })
    expect(code).toBe(1)
  }, 150_000)
})
