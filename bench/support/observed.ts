import * as http from "node:http"
import * as path from "node:path"
import { type Child, freePort, startChild } from "./processes.ts"

/**
 * The service twice more for bench:api, each with one kind of observability on: `metrics`
 * (METRICS_PORT set; the bench scrapes it while it is under load, as Prometheus would) and
 * `tracing` (OTLP/HTTP export of traces, logs and metrics to a discarding receiver in its own
 * process, bench/support/otlp-sink.ts, keeping `traceSampleRatio` of the traces). Everything else
 * as the plain service target.
 */
export const startObservedServices = async (
  root: string,
  databaseUrl: string,
  baseDomain: string,
  nodeFlags: ReadonlyArray<string>,
  traceSampleRatio: number,
  /** How many service processes share the database's rate-limit budgets (WEB_CONCURRENCY of each). */
  sharingProcesses: number
) => {
  const serve = path.join(root, "bench/support/serve.ts")
  const common = { DATABASE_URL: databaseUrl, BASE_DOMAIN: baseDomain, LOG_LEVEL: "none", WEB_CONCURRENCY: String(sharingProcesses) }
  const sink = await startChild("otlp-sink", path.join(root, "bench/support/otlp-sink.ts"), {})
  const metricsPort = await freePort(50000, 58999)
  const [metrics, tracing] = await Promise.all([
    startChild("metrics", serve, { ...common, PORT: String(await freePort(40000, 49999)), METRICS_PORT: String(metricsPort) }, nodeFlags),
    startChild(
      "tracing",
      serve,
      { ...common, PORT: String(await freePort(40000, 49999)), OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.port}`, OTEL_SERVICE_NAME: "bench", OTEL_TRACES_SAMPLER_ARG: String(traceSampleRatio) },
      nodeFlags
    )
  ])

  let scrapes = 0
  let failedScrapes = 0
  const scrape = () =>
    new Promise<void>((resolve) => {
      const request = http.get({ host: "127.0.0.1", port: metricsPort, path: "/metrics", agent: false }, (response) => {
        response.resume()
        response.on("end", () => {
          if (response.statusCode === 200) scrapes++
          else failedScrapes++
          resolve()
        })
      })
      request.on("error", () => {
        failedScrapes++
        resolve()
      })
    })

  return {
    children: [sink, metrics, tracing] as ReadonlyArray<Child>,
    metrics,
    tracing,
    /** Scrapes /metrics now and every `intervalMs` until the returned function is called. */
    scrapeEvery: (intervalMs: number) => {
      void scrape()
      const timer = setInterval(() => void scrape(), intervalMs)
      return () => clearInterval(timer)
    },
    scrapes: () => scrapes,
    failedScrapes: () => failedScrapes,
    /** What the discarding receiver got: proof the tracing target exported. */
    exported: () =>
      new Promise<{ requests: number; bytes: number }>((resolve, reject) => {
        http
          .get({ host: "127.0.0.1", port: sink.port, path: "/count", agent: false }, (response) => {
            let body = ""
            response.on("data", (chunk) => (body += String(chunk)))
            response.on("end", () => resolve(JSON.parse(body)))
          })
          .on("error", reject)
      })
  }
}
