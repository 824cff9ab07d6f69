import type pg from "pg"

/**
 * What PostgreSQL itself counted while `action` ran, in this test file's database
 * (pg_stat_statements, loaded by the test cluster with nested statements tracked):
 * - `roundTrips`: statements the service sent (top level: each one a round trip; BEGIN, COMMIT and
 *   a write transaction's `set local` are not among them: pg_stat_statements does not list them);
 * - `foreignKeyChecks`: the referential-integrity checks PostgreSQL ran for them;
 * - `statements`: the text and calls of each top-level statement, to read when a count changes;
 * - `buffers`: the shared buffers the top-level statements touched (hit or read; a statement's count
 *   includes its triggers' and foreign-key checks'): what their plans visit, which grows when a plan
 *   walks a business's rows instead of finding them by key.
 * The counting queries themselves are left out. Run one action at a time: everything the
 * database runs meanwhile is counted.
 */
export const countStatements = async (pool: pg.Pool, action: () => Promise<void>) => {
  await pool.query("create extension if not exists pg_stat_statements")
  const { rows: [database] } = await pool.query("select oid from pg_database where datname = current_database()")
  await pool.query("select pg_stat_statements_reset(0, $1, 0)", [database.oid])
  await action()
  const { rows } = await pool.query(
    `select query, calls::int, toplevel, (shared_blks_hit + shared_blks_read)::int as buffers from pg_stat_statements
     where dbid = $1 and query not like '%pg_stat_statements%' and query not like '%pg_database%'`,
    [database.oid]
  )
  const counted = rows as Array<{ query: string; calls: number; toplevel: boolean; buffers: number }>
  const sum = (list: ReadonlyArray<{ calls: number }>) => list.reduce((total, row) => total + row.calls, 0)
  const topLevel = counted.filter((row) => row.toplevel)
  return {
    roundTrips: sum(topLevel),
    foreignKeyChecks: sum(counted.filter((row) => !row.toplevel && /FOR KEY SHARE OF/.test(row.query))),
    statements: topLevel.map((row) => `${row.calls}× ${row.buffers} buffers ${row.query.replace(/\s+/g, " ").slice(0, 160)}`),
    buffers: topLevel.reduce((total, row) => total + row.buffers, 0)
  }
}
