import type pg from "pg"
import { processTreeCpuMs, postgresCpuMs } from "./cpu.ts"

/**
 * One measured round of a write benchmark: `count` operations, `concurrency` at a time, and
 * what each cost, from the operating system (CPU of PostgreSQL's processes and of the API's)
 * and from PostgreSQL's own statistics (pg_stat_statements, loaded by bench clusters with
 * nested statements tracked): top-level statements (round trips; transaction control is not
 * counted), foreign-key checks and shared buffers (hit or read by the top-level statements, their
 * triggers' and checks' included) per operation: a plan that walks rows it then throws away shows
 * in the buffers before it shows in the time. With BENCH_STATEMENTS=1 each round also prints
 * its costliest statements per operation (execution time, lock waits included) and what its
 * backends waited on (sampled every 50 ms; CPU: not waiting) to stderr.
 */
export interface Round {
  readonly perSecond: number
  readonly roundTrips: number
  readonly foreignKeyChecks: number
  readonly buffers: number
  readonly postgresCpuMs: number
  readonly apiCpuMs: number
}

export const measureRound = async (options: {
  readonly pool: pg.Pool
  readonly postmaster: number | undefined
  readonly apiPid: number | undefined
  readonly count: number
  readonly concurrency: number
  readonly task: (i: number) => Promise<void>
}): Promise<Round> => {
  const { pool, count } = options
  await pool.query("create extension if not exists pg_stat_statements")
  const { rows: [database] } = await pool.query("select oid from pg_database where datname = current_database()")
  await pool.query("select pg_stat_statements_reset(0, $1, 0)", [database.oid])
  const cpu = () => ({
    postgres: options.postmaster ? postgresCpuMs(options.postmaster) : 0,
    api: options.apiPid ? processTreeCpuMs(options.apiPid) : 0
  })
  const statements = process.env.BENCH_STATEMENTS === "1"
  const stopSampling = statements ? waitSampler(pool) : undefined
  const before = cpu()
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: options.concurrency }, async () => {
    while (next < count) await options.task(next++)
  }))
  const seconds = (performance.now() - started) / 1000
  const after = cpu()
  const { rows: [counted] } = await pool.query(
    `select coalesce(sum(calls) filter (where toplevel), 0)::float8 as round_trips,
            coalesce(sum(calls) filter (where not toplevel and query like '%FOR KEY SHARE OF%'), 0)::float8 as fk_checks,
            coalesce(sum(shared_blks_hit + shared_blks_read) filter (where toplevel), 0)::float8 as buffers
     from pg_stat_statements where dbid = $1 and query not like '%pg_stat_statements%' and query not like '%pg_database%'`,
    [database.oid]
  )
  if (stopSampling) {
    for (const row of await topStatements(pool, count)) {
      process.stderr.write(`    ${row.toplevel ? "top" : "   "} ${row.calls.toFixed(2)}× ${row.execMs.toFixed(3)} ms, planning ${row.planMs.toFixed(3)} ms, ${row.buffers.toFixed(0)} buf  ${row.query}\n`)
    }
    const waits = (await stopSampling()).slice(0, 6).map(({ wait, share }) => `${wait} ${(100 * share).toFixed(0)} %`)
    process.stderr.write(`    waits: ${waits.join(", ")}\n`)
  }
  return {
    perSecond: count / seconds,
    roundTrips: counted.round_trips / count,
    foreignKeyChecks: counted.fk_checks / count,
    buffers: counted.buffers / count,
    postgresCpuMs: (after.postgres - before.postgres) / count,
    apiCpuMs: (after.api - before.api) / count
  }
}

/**
 * The statements that took most execution time since pg_stat_statements was last reset in this
 * database (lock waits included), per operation of `count`, with their planning time (0 unless
 * the cluster tracks it: bench clusters do with BENCH_STATEMENTS=1) and shared buffers; the
 * counting queries left out.
 */
export const topStatements = async (pool: pg.Pool, count: number) => {
  const { rows } = await pool.query(
    `select toplevel, calls::float8 as calls, total_exec_time as exec_ms, total_plan_time as plan_ms,
            (shared_blks_hit + shared_blks_read)::float8 as buffers, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as query
     from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
       and query not like '%pg_stat%' and query not like '%pg_database%' and query not like '%pg_get_wal%'
     order by total_exec_time desc limit 14`
  )
  return (rows as Array<{ toplevel: boolean; calls: number; exec_ms: number; plan_ms: number; buffers: number; query: string }>)
    .map((row) => ({
      toplevel: row.toplevel,
      query: row.query,
      calls: row.calls / count,
      execMs: row.exec_ms / count,
      planMs: row.plan_ms / count,
      buffers: row.buffers / count
    }))
}

/** The better of two rounds by throughput (rounds alternate so a drift of the machine hits both sides). */
export const best = (a: Round, b: Round): Round => (a.perSecond >= b.perSecond ? a : b)

export const roundLine = (label: string, round: Round) =>
  `${label.padEnd(34)} ${round.perSecond.toFixed(0).padStart(7)}/s  ${round.roundTrips.toFixed(1).padStart(5)} stmts  ${
    round.foreignKeyChecks.toFixed(1).padStart(5)
  } FK  ${round.buffers.toFixed(0).padStart(5)} buf  ${round.postgresCpuMs.toFixed(2).padStart(6)} ms PG  ${round.apiCpuMs.toFixed(2).padStart(6)} ms API`

/** Samples the active client backends' wait events until stopped; answers each wait's share of the samples. */
export const waitSampler = (pool: pg.Pool) => {
  const counts = new Map<string, number>()
  let running = true
  const loop = (async () => {
    while (running) {
      const { rows } = await pool.query(
        `select coalesce(wait_event_type || ':' || wait_event, 'CPU')
                  || case when wait_event_type = 'Lock' then ' (' || left(regexp_replace(query, '\\s+', ' ', 'g'), 48) || ')' else '' end as wait,
                count(*)::int as n
         from pg_stat_activity
         where backend_type = 'client backend' and state = 'active' and pid <> pg_backend_pid()
         group by 1`
      )
      for (const { wait, n } of rows as Array<{ wait: string; n: number }>) counts.set(wait, (counts.get(wait) ?? 0) + n)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  return async () => {
    running = false
    await loop
    const total = [...counts.values()].reduce((a, b) => a + b, 0) || 1
    return [...counts].map(([wait, n]) => ({ wait, share: n / total })).sort((a, b) => b.share - a.share)
  }
}
