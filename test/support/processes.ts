import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"

/**
 * `npm start` and the operator CLI as processes, for the tests of how they share the embedded
 * PostgreSQL (and of many processes on one database): spawned on this Node (optionally through a
 * wrapper such as setpriv), on the embedded cluster of their own DATA_DIR (DATABASE_URL removed
 * from their environment) unless the setup's environment names a DATABASE_URL.
 */

/**
 * A port nobody listens on, tried at random in `[from, to]`. The default range lies below Linux's
 * ephemeral ports (32768–60999), which the kernel hands out as the source ports of outgoing
 * connections: a port chosen there and listened on later (a webhook target that comes back, a
 * restarted cluster) could meanwhile be the source port of some connection (EADDRINUSE).
 */
export const freePort = async (from = 20000, to = 29999): Promise<number> => {
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

export interface Setup {
  readonly cwd: string
  readonly env: Record<string, string>
  /** A command line that runs node, e.g. ["setpriv", "--reuid=65534", ...]. */
  readonly wrap?: ReadonlyArray<string>
  /** The node binary to run (default: this one, process.execPath). */
  readonly node?: string
}

const command = (setup: Setup, args: ReadonlyArray<string>) => {
  const argv = [...(setup.wrap ?? []), setup.node ?? process.execPath, ...args]
  const env: Record<string, string> = { ...(process.env as Record<string, string>), LOG_LEVEL: "info", ...setup.env }
  // The embedded cluster of DATA_DIR, unless the setup names a database itself.
  if (setup.env["DATABASE_URL"] === undefined) delete env["DATABASE_URL"]
  return { file: argv[0]!, args: argv.slice(1), options: { cwd: setup.cwd, env } }
}

export interface LongRunning {
  readonly process: ChildProcess
  readonly output: () => string
  /** Sends `signal` (SIGKILL after 20 s) and resolves with the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

const running = new Set<LongRunning>()

/** Starts `node <args>` and resolves once its output matches `ready`. */
export const startProcess = (setup: Setup, args: ReadonlyArray<string>, ready: RegExp, timeoutMs = 120_000): Promise<LongRunning> =>
  new Promise((resolve, reject) => {
    const { file, args: argv, options } = command(setup, args)
    const child = spawn(file, argv, { ...options, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    const handle: LongRunning = {
      process: child,
      output: () => output,
      stop: async (signal = "SIGINT") => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill(signal)
          const timer = setTimeout(() => child.kill("SIGKILL"), 20_000)
          await exited
          clearTimeout(timer)
        }
        running.delete(handle)
        return child.exitCode
      }
    }
    running.add(handle)
    const timer = setTimeout(() => {
      void handle.stop("SIGKILL")
      reject(new Error(`${args.join(" ")} was not ready within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      output = (output + String(chunk)).slice(-50_000)
      if (ready.test(output)) {
        clearTimeout(timer)
        resolve(handle)
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${args.join(" ")} exited before it was ready (code ${code}, signal ${signal}):\n${output}`))
    })
  })

/** Stops every process `startProcess` started that is still running (for afterAll). */
export const stopAll = () => Promise.all([...running].map((child) => child.stop("SIGKILL")))

/** Runs `node <args>` to its end. */
export const run = (setup: Setup, args: ReadonlyArray<string>, timeoutMs = 120_000) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const { file, args: argv, options } = command(setup, args)
    const child = spawn(file, argv, { ...options, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += String(chunk)))
    child.stderr.on("data", (chunk) => (stderr += String(chunk)))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** GET over HTTP with any Host header (fetch forbids setting it). */
export const get = (port: number, urlPath: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    // A connection of its own, as test/support/http.ts and metrics.ts do.
    const request = http.get({ host: "127.0.0.1", port, path: urlPath, headers, agent: false }, (response) => {
      let body = ""
      response.on("data", (chunk) => (body += String(chunk)))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
    })
    request.once("error", (error) => reject(new Error(`GET 127.0.0.1:${port}${urlPath}: ${error.message}`, { cause: error })))
  })

/** The postmaster pid of the cluster in `dataDir` while its `postmaster.pid` exists. */
export const postmasterOf = (dataDir: string): number | undefined => {
  try {
    return Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
  } catch {
    return undefined
  }
}

/** Stops a cluster left running by a failed test (immediate shutdown). */
export const killCluster = (dataDir: string) => {
  const pid = postmasterOf(dataDir)
  if (pid === undefined) return Promise.resolve()
  try {
    process.kill(pid, "SIGQUIT")
  } catch {
    return Promise.resolve()
  }
  return new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (postmasterOf(dataDir) === undefined) {
        clearInterval(poll)
        resolve()
      }
    }, 100)
    setTimeout(() => {
      clearInterval(poll)
      resolve()
    }, 10_000).unref()
  })
}
