import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import type { EmbeddedServer } from "../../src/platform/embedded-postgres.ts"
import type { Child } from "./processes.ts"

/**
 * What the write benchmarks (bookings, checkout) share: their folder under `.data`, one embedded
 * PostgreSQL, one service process and the write floors' (bench/support/floor-write.ts), stopped
 * and removed on exit or Ctrl-C, and a
 * keep-alive JSON POST to the service as the demo business's staff.
 */
export const root = path.resolve(import.meta.dirname, "../..")
export const log = (message: string) => process.stderr.write(`${message}\n`)

export interface BenchRun {
  readonly benchDir: string
  readonly dataDir: string
  postgres: EmbeddedServer | undefined
  service: Child | undefined
  floor: Child | undefined
  /** The second floor, with the rules (bench:bookings and bench:checkout). */
  rulesFloor: Child | undefined
  readonly cleanUp: () => Promise<void>
}

export const benchRun = (name: string): BenchRun => {
  const benchDir = path.join(root, ".data", name)
  const run: BenchRun = {
    benchDir,
    dataDir: path.join(benchDir, "postgres"),
    postgres: undefined,
    service: undefined,
    floor: undefined,
    rulesFloor: undefined,
    cleanUp: async () => {
      await run.service?.stop().catch(() => {})
      await run.floor?.stop().catch(() => {})
      await run.rulesFloor?.stop().catch(() => {})
      run.service = undefined
      run.floor = undefined
      run.rulesFloor = undefined
      if (run.postgres) {
        const server = run.postgres
        run.postgres = undefined
        await server.stop().catch(() => {})
      }
      fs.rmSync(benchDir, { recursive: true, force: true })
    }
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`\n${signal}: cleaning up`)
      void run.cleanUp().finally(() => process.exit(130))
    })
  }
  return run
}

/** POSTs JSON to the service with a bearer token on the business host, over `concurrency` keep-alive sockets. */
export const jsonPoster = (concurrency: number, host: string) => {
  // Idle sockets close on our side (4 s) before the server's keep-alive timeout (5 s) can close one as a request goes out.
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, timeout: 4000 })
  return (port: number, token: string, urlPath: string, body: unknown) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const payload = JSON.stringify(body)
      const request = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: urlPath,
          agent,
          headers: {
            host,
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(payload))
          }
        },
        (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
        }
      )
      request.on("error", reject)
      request.end(payload)
    })
}

/**
 * Runs a bench's `main`, then stops the processes it started and its PostgreSQL, whether it
 * finished or failed (a failure is printed and sets the exit code).
 */
export const runBench = (main: () => Promise<void>, started: () => { readonly children: ReadonlyArray<Child>; readonly postgres: EmbeddedServer | undefined }) => {
  const shutdown = async () => {
    const { children, postgres } = started()
    for (const child of children) await child.stop().catch(() => {})
    await postgres?.stop().catch(() => {})
  }
  return main()
    .then(shutdown)
    .catch(async (error) => {
      log(error instanceof Error ? (error.stack ?? error.message) : String(error))
      await shutdown()
      process.exitCode = 1
    })
}
