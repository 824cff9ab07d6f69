import type { Message } from "../src/shared/errors.ts"

/**
 * One thing wrong with a report query: a named refusal's message (reports/refusals.ts) with its
 * parameters, which the HTTP layer translates into the request's locale. Every stage (grammar,
 * normalize, run) reports all the problems it finds, so a client fixes a query in one round trip.
 */
export type QueryProblem = Message

/** A value as it appears inside a message: strings quoted, everything else as JSON. */
export const shown = (value: unknown): string => {
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}
