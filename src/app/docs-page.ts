import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { Api } from "./api.ts"

/**
 * The API reference page at `/api/docs`: Scalar, served from the copy bundled with Effect
 * (the machines it runs on may not reach a CDN), with our OpenAPI document inlined.
 * `HttpApiScalar.layer` loads its 3 MB script when the server starts, which keeps about 13 MiB
 * of strings in every API process for a page few requests ask for; here the script is loaded,
 * and the page built, on the first request for it, once.
 */
const escapeScriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))
const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

let page: Promise<string> | undefined
const buildPage = async () => {
  // The bundled script is internal to Effect (its exports map hides it): it sits next to the
  // http-api entry point, where HttpApiScalar itself imports it from.
  const script = new URL("./internal/httpApiScalar.js", import.meta.resolve("effect/http-api"))
  const { javascript } = (await import(script.href)) as { javascript: string }
  const spec = OpenApi.fromApi(Api)
  return `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(spec.info.title)}</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <div id="api-reference-container"></div>
    <script>${javascript}</script>
    <script>
      window.Scalar.createApiReference(document.getElementById('api-reference-container'), {
        _integration: "html",
        content: ${escapeScriptJson(spec)}
      })
    </script>
  </body>
</html>`
}

export const DocsPageLive = HttpRouter.use((router) =>
  router.add(
    "GET",
    "/api/docs",
    // Never inside another site's frame (clickjacking): the page runs requests with what a
    // visitor types into it. Only frame-ancestors: the page's own inline scripts must run.
    Effect.map(Effect.promise(() => (page ??= buildPage())), (html) =>
      HttpServerResponse.html(html).pipe(
        HttpServerResponse.setHeaders({ "x-frame-options": "DENY", "content-security-policy": "frame-ancestors 'none'" })
      ))
  ))
