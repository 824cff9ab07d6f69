import * as path from "node:path"
import { type EmbeddedServer, startEmbeddedPostgres } from "../../src/platform/embedded-postgres.ts"
import { ensureDatabase, migrate } from "../../src/platform/migrator.ts"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"

/** A port nobody listens on in `[from, to]`, tried at random. */
export const freePort = async (from: number, to: number): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = from + Math.floor(Math.random() * (to - from + 1))
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer()
      probe.once("error", () => resolve(false))
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)))
    })
    if (free) return port
  }
  throw new Error(`no free port in ${from}-${to}`)
}

/** The V8 flags the service runs with (package.json `start`, the Dockerfile): every bench's service child gets them. */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=16", "--heap-growing-percent=50", "--no-allocation-site-pretenuring"]

/** With BENCH_CPU_PROF=<dir>, a child writes a V8 CPU profile into `<dir>/<sub>` when it exits. */
export const cpuProfileFlags = (sub = ""): Array<string> =>
  process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF, sub)}`] : []

export interface Child {
  readonly name: string
  readonly process: ChildProcess
  readonly port: number
  /** What the child wrote to stderr, for the report when it fails. */
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** For a child that does not print `ready <port>` (the CLI): its arguments, the stdout line that says it is ready, its port. */
export interface ReadyWhen {
  readonly args?: ReadonlyArray<string>
  readonly ready: RegExp
  readonly port: number
  readonly timeoutMs?: number
}

/**
 * Runs a `.ts` script on this Node in its own process and waits for its `ready <port>` line
 * (or, with `readyWhen`, for that line on the port given). `stop` sends SIGTERM, then SIGKILL
 * if it has not exited within 5 s.
 */
export const startChild = (
  name: string,
  script: string,
  env: Record<string, string>,
  extraNodeArgs: ReadonlyArray<string> = [],
  readyWhen?: ReadyWhen
): Promise<Child> =>
  new Promise((resolve, reject) => {
    const timeoutMs = readyWhen?.timeoutMs ?? 30_000
    const child = spawn(process.execPath, [...extraNodeArgs, script, ...(readyWhen?.args ?? [])], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    let stdout = ""
    let ready = false
    // `ready <port>` comes on stdout; the CLI logs (readyWhen) on stderr.
    const checkReady = () => {
      if (ready) return
      const match = (readyWhen ? `${stdout}\n${stderr}` : stdout).match(readyWhen?.ready ?? /^ready (\d+)$/m)
      if (!match) return
      ready = true
      clearTimeout(timeout)
      child.stdout.removeAllListeners("data")
      child.stdout.resume()
      resolve({ name, process: child, port: readyWhen?.port ?? Number(match[1]), stderr: () => stderr, stop })
    }
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-20_000)
      checkReady()
    })
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000)
      await exited
      clearTimeout(timer)
    }
    const timeout = setTimeout(() => {
      void stop()
      reject(new Error(`${name} did not report ready within ${timeoutMs / 1000} s\n${stderr}`))
    }, timeoutMs)
    child.once("exit", (code, signal) => {
      clearTimeout(timeout)
      reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})\n${stderr}`))
    })
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      checkReady()
    })
  })

/** Peak and current resident memory of a live process, in MiB (Linux `/proc`). */
export const memoryOf = (pid: number): { peakMiB: number; currentMiB: number } | undefined => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
    const kib = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? NaN)
    return { peakMiB: kib("VmHWM") / 1024, currentMiB: kib("VmRSS") / 1024 }
  } catch {
    return undefined
  }
}

/**
 * An embedded PostgreSQL on a free port with a migrated `studio_bench` database. The server is
 * handed to `onStarted` as soon as it runs, so the caller can stop it even if migrating fails.
 */
export const startBenchDatabase = async (dataDir: string, onStarted: (server: EmbeddedServer) => void) => {
  const port = await freePort(56000, 59999)
  // BENCH_STATEMENTS=1 lists each round's statements with their planning time too (bench/support/write-measure.ts);
  // BENCH_PG_SETTINGS="name=value ..." runs the cluster with those settings (an experiment's, e.g. plan_cache_mode).
  const settings = [
    ...(process.env.BENCH_STATEMENTS === "1" ? ["pg_stat_statements.track_planning=on"] : []),
    ...(process.env.BENCH_PG_SETTINGS ? process.env.BENCH_PG_SETTINGS.split(" ") : [])
  ]
  const server = await startEmbeddedPostgres({ dataDir, port, ephemeral: true, settings })
  onStarted(server)
  const databaseUrl = server.url("studio_bench")
  await ensureDatabase(databaseUrl)
  await migrate(databaseUrl)
  return { port, databaseUrl }
}
