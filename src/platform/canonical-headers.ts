import * as http from "node:http"

/**
 * Response header names in their canonical capitalisation (`Location`, `Content-Type`,
 * `RateLimit-Remaining`, `WWW-Authenticate`), as the public service sends them.
 *
 * Effect keeps header names lower-cased, and Node writes a name exactly as it is given. HTTP
 * names are case-insensitive, but scripts written against the public service match them
 * case-sensitively (the Reporting API example's `retrieve_auth_token.sh` reads the code with
 * `perl -n -e '/Location: .+?code=(\w+)/'` over `curl -D -`). So the server's `ServerResponse`
 * renames each header as it is set or written; the names Node adds itself (`Date`,
 * `Connection`, `Keep-Alive`, `Transfer-Encoding`) are canonical already.
 */

/** Names whose canonical form is not "each word capitalised". */
const SPECIAL: Record<string, string> = {
  "www-authenticate": "WWW-Authenticate",
  etag: "ETag",
  te: "TE",
  "x-xss-protection": "X-XSS-Protection",
  "content-md5": "Content-MD5",
  dnt: "DNT"
}
const PREFIXES: ReadonlyArray<readonly [string, string]> = [
  ["ratelimit-", "RateLimit-"],
  ["x-fd-", "X-FD-"]
]

const cache = new Map<string, string>()

export const canonicalHeaderName = (name: string): string => {
  const cached = cache.get(name)
  if (cached !== undefined) return cached
  const lower = name.toLowerCase()
  let canonical = SPECIAL[lower]
  if (canonical === undefined) {
    const prefix = PREFIXES.find(([from]) => lower.startsWith(from))
    const rest = prefix ? lower.slice(prefix[0].length) : lower
    const words = rest.split("-").map((word) => (word === "" ? word : word[0]!.toUpperCase() + word.slice(1)))
    canonical = (prefix ? prefix[1] : "") + words.join("-")
  }
  // Names come from code, not from clients: the cache stays as small as the set of names we send.
  if (cache.size < 500) cache.set(name, canonical)
  return canonical
}

const canonicalHeaders = (headers: unknown): unknown => {
  if (headers === null || typeof headers !== "object") return headers
  if (Array.isArray(headers)) {
    // [name, value, name, value, …] or [[name, value], …]
    return headers.map((entry: unknown, index) =>
      Array.isArray(entry)
        ? [canonicalHeaderName(String(entry[0])), ...entry.slice(1)]
        : index % 2 === 0 && typeof entry === "string"
          ? canonicalHeaderName(entry)
          : entry
    )
  }
  const renamed: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(headers)) renamed[canonicalHeaderName(name)] = value
  return renamed
}

/** `http.createServer({ ServerResponse: CanonicalHeadersResponse })`. */
export class CanonicalHeadersResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {
  override setHeader(name: string, value: number | string | ReadonlyArray<string>): this {
    return super.setHeader(canonicalHeaderName(name), value)
  }

  override writeHead(...args: Array<unknown>): this {
    // writeHead(status, headers?) or writeHead(status, statusMessage, headers?), the message possibly undefined
    const at = typeof args[1] === "object" && args[1] !== null ? 1 : 2
    if (args.length > at) args[at] = canonicalHeaders(args[at])
    return (super.writeHead as (...all: Array<unknown>) => this)(...args)
  }
}
