import * as http from "node:http"
import * as https from "node:https"
import { isIP } from "node:net"
import { guardedLookup, hostOf, isPublicAddress, RefusedTarget } from "./targets.ts"

/**
 * One POST of a notification. Success is a 2xx; redirects are not followed (a 3xx is a failed
 * attempt, like any other status). The whole exchange, connection to the end of the answer,
 * has `timeoutMs`. Connections are kept alive per target host, and each new connection goes
 * through the guarded lookup (targets.ts).
 */

export const DELIVERY_TIMEOUT_MS = 10_000
const RESPONSE_LOG_BYTES = 1024

export interface PostResult {
  /** null: no HTTP answer. */
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly error: string | null
  /** The first kilobyte of the answer, as text. */
  readonly responseBody: string | null
}

const agents = new Map<boolean, { readonly http: http.Agent; readonly https: https.Agent }>()
const agentsFor = (allowPrivate: boolean) => {
  let pair = agents.get(allowPrivate)
  if (!pair) {
    const options = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, lookup: guardedLookup(allowPrivate) }
    pair = { http: new http.Agent(options), https: new https.Agent(options) }
    agents.set(allowPrivate, pair)
  }
  return pair
}

const describe = (error: unknown): string => {
  if (error instanceof RefusedTarget) return `target refused: ${error.message}`
  const e = error as NodeJS.ErrnoException
  if (e?.code === "ENOTFOUND" || e?.code === "EAI_AGAIN") return `could not resolve the target's host (${e.code})`
  if (e?.code === "ECONNREFUSED") return "connection refused"
  if (e?.code === "ECONNRESET") return "connection reset by the receiver"
  return e?.message ? String(e.message) : String(error)
}

const once = (
  url: URL,
  headers: Record<string, string>,
  body: string,
  allowPrivate: boolean,
  timeoutMs: number,
  signal: AbortSignal | undefined
): Promise<PostResult & { readonly reusedSocket: boolean; readonly code?: string }> =>
  new Promise((resolve) => {
    const startedAt = performance.now()
    const elapsed = () => Math.round(performance.now() - startedAt)
    let settled = false
    let reusedSocket = false
    let timer: NodeJS.Timeout | undefined
    let request: http.ClientRequest | undefined
    const onAbort = () => request?.destroy(new Error("delivery interrupted"))
    const done = (result: PostResult & { readonly code?: string }) => {
      if (settled) return
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      signal?.removeEventListener("abort", onAbort)
      resolve({ ...result, reusedSocket })
    }
    const fail = (error: unknown) =>
      done({ statusCode: null, latencyMs: elapsed(), error: describe(error), responseBody: null, code: (error as NodeJS.ErrnoException)?.code })

    // IP literals skip DNS, so the lookup guard never sees them: check them here.
    const host = hostOf(url)
    if (!allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) {
      return fail(new RefusedTarget(`${host} is a non-public address`))
    }
    const pair = agentsFor(allowPrivate)
    request = (url.protocol === "https:" ? https : http).request(url, {
      method: "POST",
      agent: url.protocol === "https:" ? pair.https : pair.http,
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }
    })
    timer = setTimeout(() => request?.destroy(Object.assign(new Error(`no complete answer within ${timeoutMs / 1000} s`), { code: "ETIMEDOUT" })), timeoutMs)
    signal?.addEventListener("abort", onAbort)
    request.on("socket", () => void (reusedSocket = request?.reusedSocket ?? false))
    request.on("error", fail)
    request.on("response", (response) => {
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        if (size < RESPONSE_LOG_BYTES) chunks.push(chunk.subarray(0, RESPONSE_LOG_BYTES - size))
        size += chunk.length
      })
      response.on("error", fail)
      response.on("close", () => void (!response.complete && fail(new Error("the answer was cut off"))))
      response.on("end", () =>
        done({
          statusCode: response.statusCode ?? null,
          latencyMs: elapsed(),
          error: null,
          responseBody: size === 0 ? null : Buffer.concat(chunks).toString("utf8")
        }))
    })
    request.end(body)
  })

export const postNotification = async (
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { readonly allowPrivate: boolean; readonly timeoutMs?: number; readonly signal?: AbortSignal }
): Promise<PostResult> => {
  const url = new URL(target)
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS
  const first = await once(url, headers, body, options.allowPrivate, timeoutMs, options.signal)
  // A kept-alive connection the receiver closed in the meantime: the request never reached it.
  if (first.reusedSocket && first.statusCode === null && (first.code === "ECONNRESET" || first.code === "EPIPE")) {
    const second = await once(url, headers, body, options.allowPrivate, timeoutMs, options.signal)
    return { statusCode: second.statusCode, latencyMs: second.latencyMs, error: second.error, responseBody: second.responseBody }
  }
  return { statusCode: first.statusCode, latencyMs: first.latencyMs, error: first.error, responseBody: first.responseBody }
}
