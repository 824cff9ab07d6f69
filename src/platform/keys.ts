import { Effect } from "effect"
import type { AppConfigShape } from "./config.ts"

/**
 * The deployment's keys: the one configured (SESSION_SECRET, WEBHOOK_SECRET_KEY or
 * their `_FILE` variants, read by config.ts), else, outside production only, the database row
 * the caller reads (app_secrets, made once per deployment). In production the row is never
 * made nor read: a copy of the database must not carry the keys that protect it. config.ts
 * already refuses a production start without them; this guard covers configurations built in code.
 */
export const deploymentKey = <E, R>(
  config: AppConfigShape,
  setting: "SESSION_SECRET" | "WEBHOOK_SECRET_KEY",
  configured: string | undefined,
  developmentRow: Effect.Effect<string, E, R>
): Effect.Effect<string, E, R> => {
  if (configured !== undefined) return Effect.succeed(configured)
  if (config.production === true) return Effect.die(new Error(`${setting} (or ${setting}_FILE) must be set when NODE_ENV=production`))
  return developmentRow
}
