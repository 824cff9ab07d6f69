import { Effect } from "effect"
import { BadRequest, type Message, fail } from "./errors.ts"
import type { MessageKey } from "./i18n.ts"

/**
 * A `from`..`to` filter whose bounds come together (spec: each required when the other is
 * given), `to` not before `from`. `missing` names the message for an absent bound; it gets
 * `field` (the absent one) and `other`. Every problem is reported at once (400).
 */
export const pairedRange = (
  query: { readonly from?: Date | undefined; readonly to?: Date | undefined },
  missing: MessageKey
) =>
  Effect.gen(function* () {
    const problems: Array<Message> = []
    if (query.from !== undefined && query.to === undefined) problems.push({ key: missing, params: { field: "to", other: "from" } })
    if (query.to !== undefined && query.from === undefined) problems.push({ key: missing, params: { field: "from", other: "to" } })
    if (query.from !== undefined && query.to !== undefined && query.to.getTime() < query.from.getTime()) {
      problems.push({ key: "range_end_before_start", params: { from: "from", to: "to" } })
    }
    if (problems.length > 0) return yield* fail(BadRequest, ...problems)
    return { from: query.from, to: query.to }
  })
