import pg from "pg"

/**
 * A `pg` client for one task's statements (migrations, a report sync, the Citus catalog, the
 * worker's liveness lock): the one way such a client is opened. A connection the server ends while
 * the client waits between statements (a restart, a failover, an administrator's
 * `pg_terminate_backend`) arrives as an `error` event; without a listener Node ends the whole
 * process with it (a worker and every job it runs). With this one, the statement in flight or the
 * next one fails instead, and its task fails as any other error (a job is retried).
 */
export const connectClient = async (config: pg.ClientConfig): Promise<pg.Client> => {
  const client = new pg.Client(config)
  client.on("error", () => {})
  await client.connect()
  return client
}
