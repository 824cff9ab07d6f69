import * as http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * An OTLP/HTTP receiver that accepts and discards (the bench's tracing target exports here):
 * every POST is read to its end and answered 200 `{}`. `GET /count` says how many export
 * requests and bytes arrived, so the bench can tell export really happened.
 * Prints `ready <port>`; SIGTERM closes it.
 */
let requests = 0
let bytes = 0
const server = http.createServer((request, response) => {
  if (request.method === "GET" && request.url === "/count") {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ requests, bytes }))
    return
  }
  request.on("data", (chunk: Buffer) => void (bytes += chunk.length))
  request.on("end", () => {
    requests++
    response.writeHead(200, { "content-type": "application/json" }).end("{}")
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, "127.0.0.1", () => process.stdout.write(`ready ${(server.address() as AddressInfo).port}\n`))
process.once("SIGTERM", () => server.close(() => process.exit(0)))
