import { Effect, Layer } from "effect"
import cluster, { type Worker } from "node:cluster"
import { LoggerLive } from "./logger.ts"
import { AppConfig, AppConfigLive } from "./config.ts"
import { DatabaseUrl, DatabaseUrlLive } from "./database.ts"
import { migrateDatabase } from "./startup.ts"

/**
 * `studio serve --processes N` (or WEB_CONCURRENCY=N): the primary process of a node:cluster.
 *
 * It starts the embedded PostgreSQL once (unless DATABASE_URL is set), migrates, then forks N
 * HTTP processes that share the port (the primary hands connections out in turn) and the
 * database (DATABASE_URL and WEB_CONCURRENCY passed down, so each sizes its rate-limit slices for
 * N). Each child runs `studio serve` as a single process would. A child that exits while the
 * primary is not stopping is replaced; one that dies soon after its start is replaced after a
 * delay that doubles (up to `MAX_BACKOFF_MS`), so a crash loop does not spin. On SIGINT/SIGTERM
 * the primary stops replacing, sends SIGTERM to every child (each stops accepting and finishes
 * its requests), waits for them (SIGKILL after `DRAIN_MS`), and only then stops PostgreSQL.
 */
const SHORT_LIFE_MS = 10_000
const FIRST_BACKOFF_MS = 250
const MAX_BACKOFF_MS = 30_000
const DRAIN_MS = 30_000

export const restartDelay = (failuresInARow: number) =>
  failuresInARow <= 0 ? 0 : Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failuresInARow - 1))

const runPrimary = (processes: number) =>
  Effect.gen(function* () {
    yield* migrateDatabase
    const databaseUrl = yield* DatabaseUrl
    const config = yield* AppConfig
    if (config.rateLimitStore === "memory") {
      yield* Effect.logWarning("RATE_LIMIT_STORE=memory with several HTTP processes: each counts its own budget, so a client gets up to N times its limit")
    }
    const env = { ...process.env, DATABASE_URL: databaseUrl, WEB_CONCURRENCY: String(processes) }
    const log = (message: string, annotations: Record<string, unknown>) =>
      Effect.runFork(Effect.logInfo(message).pipe(Effect.annotateLogs(annotations), Effect.provide(LoggerLive), Effect.provideService(AppConfig, config)))

    let stopping = false
    // A Ctrl-C reaches the children too: none of their exits is then a crash to replace.
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void (stopping = true))
    let failuresInARow = 0
    let listening = 0
    const startedAt = new Map<Worker, number>()
    // Each child keeps a slot, 0 to N-1, that its replacement takes over: its metrics listener
    // is METRICS_PORT + slot (src/app/metrics-server.ts), the same port across restarts.
    const slots = new Map<Worker, number>()
    const fork = (slot: number) => {
      const worker = cluster.fork({ ...env, STUDIO_PROCESS_SLOT: String(slot) })
      startedAt.set(worker, Date.now())
      slots.set(worker, slot)
      return worker
    }

    cluster.on("listening", (worker) => {
      log("http process listening", { pid: worker.process.pid })
      if (++listening === processes) log("http processes listening", { host: config.host, port: config.port, processes })
    })
    cluster.on("exit", (worker, code, signal) => {
      const lived = Date.now() - (startedAt.get(worker) ?? 0)
      const slot = slots.get(worker) ?? 0
      startedAt.delete(worker)
      slots.delete(worker)
      if (stopping) return
      failuresInARow = lived < SHORT_LIFE_MS ? failuresInARow + 1 : 0
      const delay = restartDelay(failuresInARow)
      log("http process exited, replacing it", { pid: worker.process.pid, code, signal, restart_in_ms: delay })
      setTimeout(() => {
        if (!stopping) fork(slot)
      }, delay)
    })

    yield* Effect.acquireRelease(
      Effect.sync(() => {
        for (let i = 0; i < processes; i++) fork(i)
      }),
      () =>
        Effect.promise(async () => {
          stopping = true
          const children = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined)
          await Promise.all(
            children.map(
              (worker) =>
                new Promise<void>((done) => {
                  if (worker.isDead()) return done()
                  const timer = setTimeout(() => worker.process.kill("SIGKILL"), DRAIN_MS)
                  worker.once("exit", () => {
                    clearTimeout(timer)
                    done()
                  })
                  worker.process.kill("SIGTERM")
                })
            )
          )
        })
    )
    return yield* Effect.never
  })

/** Runs the primary until SIGINT/SIGTERM; PostgreSQL (when embedded) stops after the children. */
export const serveProcesses = (processes: number) =>
  runPrimary(processes).pipe(
    Effect.scoped,
    Effect.provide(Layer.mergeAll(DatabaseUrlLive, LoggerLive).pipe(Layer.provideMerge(AppConfigLive)))
  )

export const isClusterChild = () => cluster.isWorker

/** This HTTP process's slot among `--processes N` (0 to N-1); 0 for a single process. */
export const processSlot = () => (cluster.isWorker ? Number(process.env.STUDIO_PROCESS_SLOT ?? "0") || 0 : 0)
