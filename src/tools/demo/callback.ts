import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { alert, escapeHtml, renderPage } from "../../identity/oauth/pages.ts"
import { pageContext, queryOf } from "../../identity/oauth/requests.ts"
import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET } from "./document.ts"

/**
 * The demo application's redirect target (`npm start` registers `demo-app` with it): shows the
 * code and the request that exchanges it. Developer-facing, so English only.
 */
const demoCallback = Effect.fn("Demo.callback")(function* (request: HttpServerRequest.HttpServerRequest) {
  const page = yield* pageContext(request)
  const query = queryOf(request)
  const code = query["code"]
  const body = code
    ? `<h1>Authorization code</h1>
<p>The demo application received this code (valid 10 minutes, single use):</p>
<pre style="white-space: pre-wrap; word-break: break-all">${escapeHtml(code)}</pre>
<p>Exchange it for an access token:</p>
<pre style="white-space: pre-wrap; word-break: break-all">curl -s -X POST '${escapeHtml(page.origin)}/oauth/token' \
  -d grant_type=authorization_code -d code='${escapeHtml(code)}' \
  -d redirect_uri='${escapeHtml(`${page.origin}/oauth/callback`)}' \
  -d client_id=${DEMO_CLIENT_ID} -d client_secret=${DEMO_CLIENT_SECRET}</pre>`
    : `<h1>No code</h1>${alert(escapeHtml(query["error_description"] ?? query["error"] ?? "The authorization request returned no code."))}`
  return renderPage({ locale: "en", branding: null, title: "page_login_title", body })
})

/** The demo's callback page, registered only beside the demo (src/main.ts seeds it). */
export const DemoCallbackLive = HttpRouter.add("GET", "/oauth/callback", demoCallback)
