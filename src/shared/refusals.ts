import type { Effect } from "effect"
import { BadRequest, fail, Forbidden, type Message, NotFound, TooManyRequests, Unprocessable } from "./errors.ts"
import type { MessageKey, MessageParams } from "./i18n.ts"
import { en } from "./i18n/en.ts"

/**
 * Named refusals. Each domain keeps one file, `refusals.ts`, that names every refusal it can
 * answer: the wire class (and so the status) and the message key, e.g.
 *
 *   export const LocationRefusals = {
 *     locationNotFound: refusal(NotFound, "location_not_found")
 *   }
 *
 * Code refuses through those names (`LocationRefusals.locationNotFound.fail({ id })`, or
 * `.message(...)` for rules gathered before one 422), never through a bare key, and each
 * endpoint's OpenAPI description lists its refusals from the same objects (`docs(..., [...])`),
 * so the page a client reads and the answers the code gives come from one place.
 */
type Wire = typeof BadRequest | typeof Forbidden | typeof NotFound | typeof Unprocessable | typeof TooManyRequests

const STATUS = new Map<Wire, number>([[BadRequest, 400], [Forbidden, 403], [NotFound, 404], [Unprocessable, 422], [TooManyRequests, 429]])

export interface Refusal<W extends Wire = Wire> {
  readonly wire: W
  readonly key: MessageKey
  /** The HTTP status the refusal answers with. */
  readonly status: number
  /** The message, for rules gathered before failing once with all of them. */
  readonly message: (params?: MessageParams) => Message
  /** Refuses the request: the wire class with the message in the request's locale. */
  readonly fail: (params?: MessageParams) => Effect.Effect<never, InstanceType<W>>
}

export const refusal = <W extends Wire>(wire: W, key: MessageKey): Refusal<W> => ({
  wire,
  key,
  status: STATUS.get(wire)!,
  message: (params) => (params === undefined ? { key } : { key, params }),
  fail: (params) => fail(wire, params === undefined ? { key } : { key, params })
})

/** The Markdown list an endpoint's description ends with: status, key and the English message. */
export const refusalsList = (refusals: ReadonlyArray<Refusal>): string =>
  ["Refusals (`errors` holds the message in the request's locale):", ""]
    .concat(
      [...refusals]
        .sort((a, b) => a.status - b.status || a.key.localeCompare(b.key))
        .map((r) => `- ${r.status} \`${r.key}\`: ${en[r.key].replace(/%\{(\w+)\}/g, "{$1}")}`)
    )
    .join("\n")
