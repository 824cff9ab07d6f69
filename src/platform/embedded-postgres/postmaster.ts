import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Binaries, EmbeddedPostgresError, type Ids, USER } from "./placement.ts"

/**
 * The postmaster of the embedded PostgreSQL (src/platform/embedded-postgres.ts): finding a
 * running one, creating a cluster (initdb), starting and stopping it, and the lock file that
 * lets one process at a time start it.
 */

export const PASSWORD = "postgres"

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** `postmaster.pid` of a live postmaster: line 1 its pid, line 4 its port, line 8 its status. */
export const runningCluster = (clusterDir: string): { pid: number; port: number; ready: boolean } | undefined => {
  let text: string
  try {
    text = fs.readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8")
  } catch {
    return undefined
  }
  const lines = text.split("\n")
  const pid = Number(lines[0])
  const port = Number(lines[3])
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined
  // A pid reused since a crash (after a reboot, say) is not a postmaster.
  const command = fs.existsSync(`/proc/${pid}/comm`) ? fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() : "postgres"
  if (command !== "postgres") return undefined
  return { pid, port, ready: lines[7]?.trim() === "ready" && Number.isInteger(port) }
}

/** Serializes the starts of one cluster across processes: a file holding the starter's pid. */
export const tryStartLock = (lockFile: string): (() => void) | undefined => {
  try {
    fs.writeFileSync(lockFile, `${process.pid}\n`, { flag: "wx" })
    return () => fs.rmSync(lockFile, { force: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    const holder = Number(fs.readFileSync(lockFile, "utf8").trim())
    if (!isAlive(holder)) fs.rmSync(lockFile, { force: true }) // its starter died; the next round takes it
    return undefined
  }
}

export const bestLocale = (): string => {
  try {
    const available = new Set(execFileSync("locale", ["-a"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).split("\n").map((l) => l.trim()))
    return ["en_US.UTF-8", "C.UTF-8", "en_US.utf8"].find((locale) => available.has(locale)) ?? "C"
  } catch {
    return "C"
  }
}

export const runInitdb = async (binaries: Binaries, clusterDir: string, user: Ids | undefined, locale: string) => {
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 })
  const passwordFile = path.join(path.dirname(clusterDir), `.pwfile-${process.pid}`)
  fs.writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 })
  if (user) {
    fs.chownSync(clusterDir, user.uid, user.gid)
    fs.chownSync(passwordFile, user.uid, user.gid)
  }
  try {
    const output = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
      const child = spawn(
        binaries.initdb,
        // UTF8 whatever the caller's locale: a login shell of an ordinary user is often POSIX,
        // which would give SQL_ASCII (and refuse ICU collations and non-ASCII text's checks).
        [`--pgdata=${clusterDir}`, "--auth=password", `--username=${USER}`, `--pwfile=${passwordFile}`, "--encoding=UTF8", `--lc-messages=${locale}`],
        { ...user, cwd: path.dirname(clusterDir), env: { ...process.env, LC_MESSAGES: locale }, stdio: ["ignore", "pipe", "pipe"] }
      )
      let text = ""
      child.stdout.on("data", (chunk) => (text += String(chunk)))
      child.stderr.on("data", (chunk) => (text += String(chunk)))
      child.once("error", reject)
      child.once("close", (code) => resolve({ code, text }))
    })
    if (output.code !== 0) {
      const last = output.text.trim().split("\n").filter((line) => line.trim()).slice(-2).join(" ")
      throw new EmbeddedPostgresError(`initdb could not create a cluster in ${clusterDir}: ${last}`)
    }
  } catch (error) {
    if (error instanceof EmbeddedPostgresError) throw error
    const code = (error as NodeJS.ErrnoException).code
    throw new EmbeddedPostgresError(`initdb could not run (${code ?? String(error)}) for the cluster in ${clusterDir}: set DATABASE_URL, or move the checkout to a folder all users can traverse`)
  } finally {
    fs.rmSync(passwordFile, { force: true })
  }
}

/**
 * Starts the postmaster and waits until it is ready. "taken": another postmaster holds the
 * folder (the caller joins it).
 */
export const runPostmaster = async (options: {
  binaries: Binaries
  clusterDir: string
  port: number
  user: Ids | undefined
  flags: ReadonlyArray<string>
  logFile: string
  detached: boolean
  locale: string
}): Promise<{ pid: number } | "taken"> => {
  // Appended to (kept under 10 MB): a start that loses a race must not clobber the winner's log.
  const size = () => fs.statSync(options.logFile, { throwIfNoEntry: false })?.size ?? 0
  if (size() > 10_000_000) fs.truncateSync(options.logFile)
  const offset = size()
  const log = fs.openSync(options.logFile, "a")
  const child = (() => {
    try {
      return spawn(options.binaries.postgres, ["-D", options.clusterDir, "-p", String(options.port), ...options.flags], {
        ...options.user,
        cwd: path.dirname(options.clusterDir),
        env: { ...process.env, LC_MESSAGES: options.locale },
        stdio: ["ignore", log, log],
        detached: options.detached
      })
    } finally {
      fs.closeSync(log)
    }
  })()
  let exited = false
  let spawnError = undefined as Error | undefined
  child.once("exit", () => (exited = true))
  child.once("error", (error) => {
    exited = true
    spawnError = error
  })
  if (options.detached) child.unref()
  for (;;) {
    await sleep(50)
    if (exited) break
    const running = runningCluster(options.clusterDir)
    if (running && running.pid === child.pid && running.ready) return { pid: running.pid }
  }
  if (spawnError) {
    throw new EmbeddedPostgresError(`PostgreSQL could not run (${(spawnError as NodeJS.ErrnoException).code ?? spawnError.message}): set DATABASE_URL, or move the checkout to a folder all users can traverse`)
  }
  const text = fs.readFileSync(options.logFile).subarray(offset).toString("utf8")
  if (/lock file "postmaster\.pid" already exists/.test(text)) return "taken"
  const fatal = text.split("\n").find((line) => /FATAL|could not bind/.test(line))?.replace(/^.*?(FATAL|LOG):\s*/, "")
  const portTaken = /could not (bind|create any TCP\/IP sockets)|Address already in use/.test(text)
  throw new EmbeddedPostgresError(
    `the embedded PostgreSQL in ${options.clusterDir} did not start on port ${options.port}` +
      (portTaken ? " (another server uses that port: set EMBEDDED_POSTGRES_PORT to a free one)" : fatal ? `: ${fatal}` : "") +
      ` (log: ${options.logFile})`
  )
}

/** Asks the postmaster for a fast shutdown and waits until it has gone. */
export const stopPostmaster = async (clusterDir: string, pid: number) => {
  try {
    process.kill(pid, "SIGINT")
  } catch {
    return
  }
  for (let waited = 0; isAlive(pid) && fs.existsSync(path.join(clusterDir, "postmaster.pid")); waited += 50) {
    if (waited === 30_000) process.kill(pid, "SIGQUIT")
    await sleep(50)
  }
}
