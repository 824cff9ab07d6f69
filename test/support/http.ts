import * as http from "node:http"
import { expect } from "vitest"
import { FUZZ_LOG, FUZZ_MODE, raceCopies, replayOutOfRange, replayOutOfRangeQuery } from "./fuzz.ts"

export interface TestResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: any
}

export interface RequestOptions {
  readonly host?: string
  readonly headers?: Record<string, string>
  /** An object is sent as JSON; a string as is (set content-type yourself). */
  readonly body?: unknown
  readonly token?: string
}

/** Reads an answer to its end, then hands over its status, headers, text and (if it is JSON) parsed body. */
export const readResponse = (response: http.IncomingMessage, done: (answer: TestResponse) => void) => {
  const chunks: Array<Buffer> = []
  response.on("data", (chunk: Buffer) => chunks.push(chunk))
  response.on("end", () => {
    const text = Buffer.concat(chunks).toString("utf8")
    let json: unknown
    try {
      json = text.length > 0 ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    done({ status: response.statusCode ?? 0, headers: response.headers, text, json })
  })
}

/**
 * An HTTP request over a real socket to the test server, with any Host header (fetch forbids
 * setting Host, and tenancy is by host). With FUZZ_LOG set, a JSON body is first replayed with
 * its numbers and dates out of range (support/fuzz.ts).
 */
export const makeRequester = (port: number, defaultHost: string) => {
  const send = sender(port, defaultHost)
  return async (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
    if (FUZZ_LOG !== undefined && FUZZ_MODE === "race" && method !== "GET" && method !== "HEAD") {
      const own = send(method, path, options)
      const body = typeof options.body === "string" ? options.body : options.body === undefined ? undefined : JSON.stringify(options.body)
      await raceCopies(method, path, body, own, () => send(method, path, options))
      return own
    }
    if (FUZZ_LOG !== undefined && FUZZ_MODE === "range" && method !== "GET" && options.body !== null && typeof options.body === "object") {
      const headers = { ...options.headers, "content-type": options.headers?.["content-type"] ?? "application/json" }
      await replayOutOfRange(method, path, options.body, (payload) => send(method, path, { ...options, headers, body: payload }))
    }
    if (FUZZ_LOG !== undefined && FUZZ_MODE === "range" && method === "GET") await replayOutOfRangeQuery(path, (variant) => send(method, variant, options))
    return send(method, path, options)
  }
}

const sender =
  (port: number, defaultHost: string) =>
  (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { host: options.host ?? defaultHost, ...options.headers }
      if (options.token) headers["authorization"] = `Bearer ${options.token}`
      let payload: string | undefined
      if (options.body !== undefined) {
        if (typeof options.body === "string") {
          payload = options.body
        } else {
          payload = JSON.stringify(options.body)
          headers["content-type"] ??= "application/json"
        }
        headers["content-length"] = String(Buffer.byteLength(payload))
      }
      const request = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (response) =>
        readResponse(response, resolve)
      )
      request.on("error", reject)
      if (payload !== undefined) request.write(payload)
      request.end()
    })

export type Requester = ReturnType<typeof makeRequester>

/** Per call: a token string, or a token, host and headers (X-FD-Locale, Idempotency-Key). */
export type SendAs = string | Pick<RequestOptions, "token" | "host" | "headers">

/**
 * `desk("POST", "/invoices", body)`: a request under one API root (`/api/v2/desk`) as a default
 * identity, which is read at each call as fixtures are made in beforeAll; an undefined body sends none.
 */
export const apiCaller =
  (root: string, defaults: () => { readonly request: Requester; readonly token?: string; readonly host?: string }) =>
  (method: string, path: string, body?: unknown, as: SendAs = {}): Promise<TestResponse> => {
    const { request, ...identity } = defaults()
    const options = typeof as === "string" ? { token: as } : as
    return request(method, `${root}${path}`, { ...identity, ...options, ...(body === undefined ? {} : { body }) })
  }

/** Follows a link the API answered (a hosted page on another host), posting a form body if given. */
export const followLink = (request: Requester, url: string, method = "GET", body?: string) => {
  const parsed = new URL(url)
  return request(method, parsed.pathname + parsed.search, {
    host: parsed.host,
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/x-www-form-urlencoded" } })
  })
}

/** The response, once it answered `status` (its body in the failure message otherwise). */
export const ok = <R extends { readonly status: number; readonly text: string }>(response: R, status: number) => {
  expect(response.status, response.text).toBe(status)
  return response
}
