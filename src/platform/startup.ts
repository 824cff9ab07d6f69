import { Effect } from "effect"
import { DatabaseUrl } from "./database.ts"
import { migrate } from "./migrator.ts"

/** Applies pending migrations (ours, then graphile-worker's) to the configured database. */
export const migrateDatabase = Effect.gen(function* () {
  const url = yield* DatabaseUrl
  const applied = yield* Effect.tryPromise(() => migrate(url)).pipe(Effect.orDie)
  if (applied.length > 0) yield* Effect.logInfo("migrations applied").pipe(Effect.annotateLogs({ migrations: applied }))
  return applied
})
