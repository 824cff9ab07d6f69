import type pg from "pg"

/**
 * What race tests wait for: a state another request or transaction reaches (`until`), such as
 * backends waiting on a lock (`lockWaiters`). A bound, not a timing: the poll only keeps a broken
 * interleaving from hanging the run, and the error names what never came.
 */
export const until = async (check: () => Promise<boolean> | boolean, what: string, options: { readonly everyMs?: number; readonly attempts?: number } = {}) => {
  const { everyMs = 10, attempts = 2000 } = options
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** Backends of this database waiting for a lock; with `like`, only those running a statement like it. */
export const lockWaiters = async (pool: pg.Pool, like?: string): Promise<number> =>
  (
    await pool.query(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and ($1::text is null or query ilike $1)`,
      [like ?? null]
    )
  ).rows[0].n
