import * as http from "node:http"
import { signatureOf } from "../../src/webhooks/signing.ts"

/**
 * The webhook benchmark's baseline: COUNT signed POSTs of BODY to TARGET, CONCURRENCY at a time,
 * over keep-alive connections: what a delivery costs with nothing around it (no queue, no
 * database, no log). Prints one JSON line: {"deliveries", "seconds", "perSecond", "p50Ms", "p99Ms"}.
 */
const target = new URL(process.env.TARGET!)
const count = Number(process.env.COUNT ?? 2000)
const concurrency = Number(process.env.CONCURRENCY ?? 4)
const body = process.env.BODY ?? "{}"
const secret = process.env.SECRET ?? "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })

const post = (i: number) =>
  new Promise<number>((resolve, reject) => {
    const startedAt = performance.now()
    const id = `msg_baseline_${i}`
    const timestamp = Math.floor(Date.now() / 1000)
    const request = http.request(target, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureOf(secret, id, timestamp, body)
      }
    }, (response) => {
      response.resume()
      response.on("end", () => (response.statusCode === 200 ? resolve(performance.now() - startedAt) : reject(new Error(`status ${response.statusCode}`))))
    })
    request.on("error", reject)
    request.end(body)
  })

const latencies: Array<number> = []
let next = 0
const startedAt = performance.now()
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < count) latencies.push(await post(next++))
  })
)
const seconds = (performance.now() - startedAt) / 1000
latencies.sort((a, b) => a - b)
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!
process.stdout.write(`${JSON.stringify({ deliveries: count, seconds, perSecond: count / seconds, p50Ms: at(0.5), p99Ms: at(0.99) })}\n`)
agent.destroy()
