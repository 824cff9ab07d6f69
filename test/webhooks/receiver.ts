import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A real HTTP receiver on loopback, as a consumer would run one. Each request is recorded,
 * then answered as `answer` says: a status code, or "hold" to keep the request open (a worker
 * killed mid-delivery), which `close` ends.
 */
export interface Received {
  readonly index: number
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  readonly json: any
  /** The socket closed before an answer was sent (the sender died). */
  aborted: boolean
}

export type Answer = number | "hold"

/** `port`: a given one (a target that was down comes back), else any free one. */
export const startReceiver = async (answer: (request: Received) => Answer = () => 200, listenOn = 0) => {
  const received: Array<Received> = []
  const waiters: Array<() => void> = []
  const held = new Set<http.ServerResponse>()
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      let json: unknown
      try {
        json = JSON.parse(body)
      } catch {
        json = undefined
      }
      const entry: Received = { index: received.length, path: request.url ?? "/", headers: request.headers, body, json, aborted: false }
      received.push(entry)
      const reply = answer(entry)
      if (reply === "hold") {
        held.add(response)
        response.on("close", () => {
          if (!response.writableFinished) entry.aborted = true
          held.delete(response)
        })
      } else {
        response.writeHead(reply, { "content-type": "text/plain" }).end(reply >= 200 && reply < 300 ? "ok" : `status ${reply}`)
      }
      for (const wake of waiters.splice(0)) wake()
    })
  })
  await new Promise<void>((resolve) => server.listen(listenOn, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port

  /** Waits until `predicate` holds over what was received (polling on each arrival, and every 100 ms). */
  const waitFor = async (predicate: (all: ReadonlyArray<Received>) => boolean, what: string, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs
    while (!predicate(received)) {
      if (Date.now() > deadline) {
        throw new Error(`receiver: timed out waiting for ${what}; got ${received.length}: ${received.map((r) => r.json?.topic).join(", ")}`)
      }
      await new Promise<void>((resolve) => {
        waiters.push(resolve)
        setTimeout(resolve, 100)
      })
    }
    return received
  }

  return {
    port,
    url: (path = "/hooks") => `http://127.0.0.1:${port}${path}`,
    received,
    waitFor,
    close: async () => {
      for (const response of held) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>
