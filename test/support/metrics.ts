import * as http from "node:http"

/** GET /metrics on the metrics listener, over a socket like Prometheus. */
export const scrape = (port: number, path = "/metrics") =>
  new Promise<{ status: number; contentType: string | undefined; body: string }>((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent: false }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, contentType: response.headers["content-type"], body: Buffer.concat(chunks).toString("utf8") }))
      })
      .on("error", reject)
  })

/** The samples of a scrape: `name{labels}` → value. */
export const samples = (text: string) => {
  const values = new Map<string, number>()
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue
    const at = line.lastIndexOf(" ")
    values.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return values
}

/** The value of the sample of `name` whose labels include every one of `labels` (0 when absent). */
export const sample = (values: Map<string, number>, name: string, labels: Record<string, string>) => {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`)
  let total = 0
  for (const [series, value] of values) {
    if (!series.startsWith(`${name}{`) && series !== name) continue
    if (wanted.every((label) => series.includes(label))) total += value
  }
  return total
}
