import type pg from "pg"
import { topStatements, waitSampler } from "./write-measure.ts"

/**
 * What one round of writes cost PostgreSQL beyond CPU, from its own statistics: WAL (pg_stat_wal,
 * and pg_walinspect over the round's WAL for the record kinds), MultiXacts (MultiXact/CREATE_ID
 * records with their members, and pg_stat_slru's multixact_offset/multixact_member pages), the
 * row locks written to WAL (Heap/LOCK records, per table, and how many of them made the row's
 * xmax a MultiXact), and what the client backends were doing, sampled from pg_stat_activity
 * every 50 ms. Per operation, except the wait samples (shares of all samples of active backends).
 *
 * Shared rows locked FOR KEY SHARE by several open transactions (a foreign key's parent row)
 * go through MultiXacts: each new locker creates one with every current member, rewrites the
 * row's xmax and WAL-logs both. These counters tell a shared row from a spread one.
 */
export interface PgCounters {
  readonly walRecords: number
  readonly walBytes: number
  readonly multixacts: number
  readonly multixactMembers: number
  readonly heapLocks: number
  /** `slru` name → pages zeroed / hit / written per operation. */
  readonly slru: Record<string, { zeroed: number; hit: number; written: number }>
  /** Table → row locks WAL-logged per operation, and how many left a MultiXact as the row's xmax. */
  readonly lockedTables: ReadonlyArray<{ table: string; locks: number; multi: number }>
  /** WAL record kind → records per operation (the commonest). */
  readonly walKinds: ReadonlyArray<{ kind: string; records: number }>
  /** With BENCH_STATEMENTS=1: the statements that took most execution time, per operation. */
  readonly statements: ReadonlyArray<{ query: string; calls: number; execMs: number }>
  /** `type:event` (or `CPU` when active without a wait) → share of active backends' samples. */
  readonly waits: ReadonlyArray<{ wait: string; share: number }>
}

const snapshot = async (pool: pg.Pool) => {
  const { rows: [row] } = await pool.query(
    `select pg_current_wal_lsn()::text as lsn,
            (select wal_records from pg_stat_wal)::float8 as wal_records,
            (select wal_bytes from pg_stat_wal)::float8 as wal_bytes,
            (select json_object_agg(name, json_build_object('zeroed', blks_zeroed, 'hit', blks_hit, 'written', blks_written))
             from pg_stat_slru where name like 'multixact%') as slru`
  )
  return row as { lsn: string; wal_records: number; wal_bytes: number; slru: Record<string, { zeroed: number; hit: number; written: number }> }
}

/** Starts counting; `finish(count)` answers the counters per operation over what ran in between. */
export const startPgCounters = async (pool: pg.Pool) => {
  await pool.query("create extension if not exists pg_walinspect")
  const before = await snapshot(pool)
  const stopSampling = waitSampler(pool)
  return async (count: number): Promise<PgCounters> => {
    const waits = await stopSampling()
    const { rows: [{ lsn: end }] } = await pool.query("select pg_current_wal_lsn()::text as lsn")
    // Backends flush their statistics at most once a second once idle, and the WAL writer
    // flushes WAL within its delay: wait for both before reading.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const after = await snapshot(pool)
    const { rows: [mx] } = await pool.query(
      `select count(*)::float8 as multixacts, coalesce(sum((regexp_match(description, 'nmembers (\\d+)'))[1]::int), 0)::float8 as members
       from pg_get_wal_records_info($1, $2) where resource_manager = 'MultiXact' and record_type = 'CREATE_ID'`,
      [before.lsn, end]
    )
    const { rows: tables } = await pool.query(
      `select coalesce(c.relname, b.relfilenode::text) as table, count(*)::float8 as locks,
              count(*) filter (where b.description like '%IS_MULTI%')::float8 as multi
       from pg_get_wal_block_info($1, $2) b
       left join pg_class c on c.relfilenode = b.relfilenode
       where b.resource_manager = 'Heap' and b.record_type = 'LOCK'
       group by 1 order by 2 desc`,
      [before.lsn, end]
    )
    const { rows: kinds } = await pool.query(
      `select "resource_manager/record_type" as kind, count::float8 as records
       from pg_get_wal_stats($1, $2, true) where count > 0 order by count desc`,
      [before.lsn, end]
    )
    const statements = process.env.BENCH_STATEMENTS === "1" ? await topStatements(pool, count) : []
    const slru = Object.fromEntries(Object.entries(after.slru).map(([name, a]) => {
      const b = before.slru[name]!
      return [name, { zeroed: (a.zeroed - b.zeroed) / count, hit: (a.hit - b.hit) / count, written: (a.written - b.written) / count }]
    }))
    const lockedTables = (tables as Array<{ table: string; locks: number; multi: number }>)
      .map((t) => ({ table: t.table, locks: t.locks / count, multi: t.multi / count }))
    return {
      walRecords: (after.wal_records - before.wal_records) / count,
      walBytes: (after.wal_bytes - before.wal_bytes) / count,
      multixacts: mx.multixacts / count,
      multixactMembers: mx.members / count,
      heapLocks: lockedTables.reduce((sum, t) => sum + t.locks, 0),
      slru,
      lockedTables,
      walKinds: (kinds as Array<{ kind: string; records: number }>).map((k) => ({ kind: k.kind, records: k.records / count })),
      statements,
      waits
    }
  }
}

const f = (n: number, digits = 2) => n.toFixed(digits)

/** A few lines per round: WAL, MultiXacts, SLRU pages, the locked tables and the top waits. */
export const countersLines = (label: string, c: PgCounters): Array<string> => {
  const member = c.slru.multixact_member
  const offset = c.slru.multixact_offset
  return [
    `  ${label}: per checkout ${f(c.walRecords, 1)} WAL records, ${f(c.walBytes, 0)} WAL bytes, ${f(c.multixacts)} MultiXacts (${f(c.multixactMembers)} members), ${f(c.heapLocks)} row locks`,
    `    slru multixact_offset zeroed/hit/written ${f(offset?.zeroed ?? 0, 3)}/${f(offset?.hit ?? 0)}/${f(offset?.written ?? 0, 3)}, multixact_member ${f(member?.zeroed ?? 0, 3)}/${f(member?.hit ?? 0)}/${f(member?.written ?? 0, 3)}`,
    `    row locks (MultiXact): ${c.lockedTables.filter((t) => t.locks >= 0.01).map((t) => `${t.table} ${f(t.locks)} (${f(t.multi)})`).join(", ") || "none"}`,
    `    WAL records: ${c.walKinds.filter((k) => k.records >= 0.5).map((k) => `${k.kind} ${f(k.records, 1)}`).join(", ")}`,
    `    waits: ${c.waits.slice(0, 6).map((w) => `${w.wait} ${(w.share * 100).toFixed(0)}%`).join(", ")}`,
    ...c.statements.map((q) => `      ${f(q.execMs, 3)} ms ${f(q.calls)}× ${q.query}`)
  ]
}
