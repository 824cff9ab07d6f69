import { Cause } from "effect"

/**
 * Whether a failure means PostgreSQL cannot be reached (stopped, restarting, refusing
 * connections, or the connection dropped mid-query), rather than a bug: such a request is
 * answered 503 with `errors` and a Retry-After, never a 500 (src/app/request-pipeline.ts). The pool
 * reconnects on the next request once PostgreSQL is back.
 */

/** PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now). */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123])$/
const UNAVAILABLE_ERRNO = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND"])
const UNAVAILABLE_MESSAGE =
  /Failed to connect|Connection closed|Connection terminated|connection error|terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery mode)|Client was closed/i

const unavailable = (error: unknown, depth: number): boolean => {
  if (error === null || typeof error !== "object" || depth > 6) return false
  const fields = error as { readonly _tag?: unknown; readonly code?: unknown; readonly message?: unknown; readonly cause?: unknown; readonly reason?: unknown }
  // effect/sql's SqlError names a lost or refused connection by its reason.
  if (fields._tag === "ConnectionError") return true
  if (typeof fields.code === "string" && (UNAVAILABLE_SQLSTATE.test(fields.code) || UNAVAILABLE_ERRNO.has(fields.code))) return true
  if (typeof fields.message === "string" && UNAVAILABLE_MESSAGE.test(fields.message)) return true
  return unavailable(fields.cause, depth + 1) || unavailable(fields.reason, depth + 1)
}

export const isDatabaseUnavailable = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((reason) =>
    Cause.isFailReason(reason) ? unavailable(reason.error, 0) : Cause.isDieReason(reason) ? unavailable(reason.defect, 0) : false
  )
