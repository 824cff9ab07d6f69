import type { MessageKey, MessageParams } from "../src/shared/i18n.ts"

/**
 * One thing wrong with a report query, as a message key and its parameters: the HTTP layer
 * translates it into the request's locale. Every stage (grammar, normalize, run) reports
 * all the problems it finds, so a client fixes a query in one round trip.
 */
export interface QueryProblem {
  readonly key: MessageKey
  readonly params?: MessageParams
}

export const problem = (key: MessageKey, params?: MessageParams): QueryProblem =>
  params === undefined ? { key } : { key, params }

/** A value as it appears inside a message: strings quoted, everything else as JSON. */
export const shown = (value: unknown): string => {
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}
