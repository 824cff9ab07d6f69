import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import { RequestContext } from "../../src/shared/request-context.ts"
import { sandboxPage } from "../../src/platform/sandbox-page.ts"

/**
 * The Reporting playground at `/reports` on a business host: a static page whose ES modules and
 * stylesheet are files of this folder (assets/), and the chart library's one self-contained ESM
 * file from node_modules. Nothing is fetched from elsewhere, so the CSP allows `'self'` only.
 * The page signs in with the service's own OAuth pages (the first-party public PKCE client of
 * src/identity/oauth/first-party.ts) and talks to the Reporting API with the token it gets; these routes
 * serve files only.
 */
export const PLAYGROUND_PATH = "/reports"
export const PLAYGROUND_ASSETS = "/reports/assets"

const ASSETS_DIR = new URL("./assets/", import.meta.url)
// The package's own entry point; its dist folder holds the ESM build (exports do not list it).
const ECHARTS_FILE = new URL("./dist/echarts.esm.min.mjs", import.meta.resolve("echarts"))

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8"
}

/**
 * Self only. `connect-src 'self'` covers the API and the token endpoint; `form-action 'self'`
 * nothing but our own pages; no inline script or style (the chart library styles its tooltip
 * through the CSSOM, which CSP does not govern).
 */
export const PLAYGROUND_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

const SECURITY_HEADERS = {
  "content-security-policy": PLAYGROUND_CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  // The OAuth code arrives in the page's query string: never send it on as a referrer.
  "referrer-policy": "no-referrer"
}

/** The files a browser may ask for, by name: nothing outside this list is read from disk. */
const FILES: Record<string, URL> = {
  "playground.css": new URL("playground.css", ASSETS_DIR),
  "app.js": new URL("app.js", ASSETS_DIR),
  "auth.js": new URL("auth.js", ASSETS_DIR),
  "builder.js": new URL("builder.js", ASSETS_DIR),
  "filter.js": new URL("filter.js", ASSETS_DIR),
  "request.js": new URL("request.js", ASSETS_DIR),
  "results.js": new URL("results.js", ASSETS_DIR),
  "chart.js": new URL("chart.js", ASSETS_DIR),
  "sha256.js": new URL("sha256.js", ASSETS_DIR),
  "echarts.esm.min.mjs": ECHARTS_FILE
}

interface Loaded {
  readonly body: Uint8Array
  readonly etag: string
}
const cache = new Map<string, Promise<Loaded>>()
const read = (url: URL) => {
  let loaded = cache.get(url.href)
  if (!loaded) {
    loaded = fs.readFile(url).then((body) => ({ body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` }))
    // A failed read is not remembered: the next request tries again.
    loaded.catch(() => cache.delete(url.href))
    cache.set(url.href, loaded)
  }
  return Effect.promise(() => loaded)
}

const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream"

/** The page exists on business hosts only: the account-level host has no reports to explore. */
const onBusinessHost = <E, R>(serve: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function* () {
    const context = yield* RequestContext
    if (Option.isSome(context.business)) return yield* serve
    return sandboxPage({
      title: "Reports playground",
      banner: "Reports playground",
      width: "32rem",
      style: "",
      status: 404,
      body: "<h1>Open the playground on your business's address</h1>\n<p>The reports playground lives at /reports on a business host, for example https://yourstudio.example.com/reports.</p>"
    })
  })

/** The file, or 304 when the browser holds this very version (its ETag is the content's hash). */
const serveFile = (file: URL, contentType: string, cacheControl: string) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { body, etag } = yield* read(file)
    const headers = { ...SECURITY_HEADERS, "cache-control": cacheControl, etag }
    if (request.headers["if-none-match"] === etag) return HttpServerResponse.empty({ status: 304, headers })
    return HttpServerResponse.uint8Array(body, { contentType, headers })
  })

// The page is small and changes with deployments: always revalidated (a 304 costs little).
const page = onBusinessHost(serveFile(new URL("index.html", ASSETS_DIR), TYPES[".html"]!, "no-cache"))

const asset = onBusinessHost(
  Effect.gen(function* () {
    const name = (yield* HttpRouter.params)["file"] ?? ""
    const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined
    if (file === undefined) {
      return HttpServerResponse.text("Not found", { status: 404, headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" } })
    }
    // The library's file is fixed by the pinned version: a day in caches. The page's own
    // modules change with deployments: revalidated on every load, answered 304 when unchanged.
    return yield* serveFile(file, typeOf(name), name.startsWith("echarts") ? "public, max-age=86400" : "no-cache")
  })
)

export const PlaygroundRoutesLive = Layer.mergeAll(
  HttpRouter.add("GET", PLAYGROUND_PATH, page),
  HttpRouter.add("GET", `${PLAYGROUND_ASSETS}/:file`, asset)
)
