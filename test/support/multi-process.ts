import * as fs from "node:fs"
import * as path from "node:path"
import { makeRequester } from "./http.ts"
import { freePort, type LongRunning, startProcess } from "./processes.ts"
import { TEST_BASE_DOMAIN } from "./server.ts"

/**
 * Two `studio serve` processes and two `studio worker` processes, each an OS process, on one
 * database (a test file's own): what an operator runs behind a load balancer.
 */
export interface ProcessGroup {
  readonly api: ReadonlyArray<{ readonly port: number; readonly process: LongRunning; readonly request: ReturnType<typeof makeRequester> }>
  readonly workers: ReadonlyArray<LongRunning>
  readonly stop: () => Promise<void>
}

export const startProcessGroup = async (options: {
  readonly databaseUrl: string
  readonly apiProcesses?: number
  readonly workerProcesses?: number
  /** Shared by every process (the report store); a fresh folder, removed on stop, when absent. */
  readonly dataDir?: string
  readonly env?: Record<string, string>
}): Promise<ProcessGroup> => {
  const dataDir = options.dataDir ?? path.resolve(`.data/test/group-${process.pid}-${Math.random().toString(36).slice(2, 8)}`)
  fs.mkdirSync(dataDir, { recursive: true })
  const env = {
    DATABASE_URL: options.databaseUrl,
    DATA_DIR: dataDir,
    BASE_DOMAIN: TEST_BASE_DOMAIN,
    HOST: "127.0.0.1",
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: "true",
    WORKER_POLL_INTERVAL_MS: "200",
    WORKER_CONCURRENCY: "2",
    RATE_LIMIT_PER_IP: "100000",
    RATE_LIMIT_PER_TOKEN: "100000",
    REPORT_RATE_LIMIT: "100000",
    ...options.env
  }
  const setupFor = (extra: Record<string, string>) => ({ cwd: process.cwd(), env: { ...env, ...extra } })
  const ports = await Promise.all(Array.from({ length: options.apiProcesses ?? 2 }, () => freePort()))
  const api = await Promise.all(
    ports.map(async (port) => {
      const child = await startProcess(setupFor({ PORT: String(port) }), ["src/cli.ts", "serve"], /http server listening/)
      return { port, process: child, request: makeRequester(port, `demo.${TEST_BASE_DOMAIN}`) }
    })
  )
  const workers = await Promise.all(
    Array.from({ length: options.workerProcesses ?? 2 }, () => startProcess(setupFor({}), ["src/cli.ts", "worker"], /worker started/))
  )
  return {
    api,
    workers,
    stop: async () => {
      await Promise.all([...api.map((one) => one.process.stop("SIGTERM")), ...workers.map((one) => one.stop("SIGTERM"))])
      if (options.dataDir === undefined) fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
