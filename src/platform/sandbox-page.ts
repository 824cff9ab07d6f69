import { HttpServerResponse } from "effect/http"
import { escapeHtml } from "../shared/html.ts"

/**
 * The pages of the built-in sandboxes (the signing provider's and the payment gateway's), which
 * stand in for a hosted third party: plain HTML, every value escaped, no scripts, never cached,
 * framed or referred (their addresses carry single-use secrets). English only: developers' stand-ins.
 */
export { escapeHtml }

const BASE_STYLE = `  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1b1d21; }
  button { padding: .7rem 1.2rem; font: inherit; font-weight: 600; border: 0; border-radius: 6px; cursor: pointer; background: #1f5f8b; color: #fff; }
  .sandbox { font-size: .85rem; color: #5b5f66; }`

export interface SandboxPage {
  readonly title: string
  /** The line that says which sandbox this is. */
  readonly banner: string
  /** The page's main width, e.g. "32rem". */
  readonly width: string
  /** CSS beyond the shared base. */
  readonly style: string
  /** Trusted HTML: its values escaped by the caller. */
  readonly body: string
  readonly status?: number
  /** Added to the content security policy, e.g. "form-action 'self'". */
  readonly csp?: string
}

export const sandboxPage = (page: SandboxPage) =>
  HttpServerResponse.text(
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>
${BASE_STYLE}
  main { max-width: ${page.width}; margin: 6vh auto; background: #fff; padding: 2rem; border-radius: 12px; box-shadow: 0 2px 12px #0002; }
${page.style}
</style>
</head>
<body>
<main>
<p class="sandbox">${escapeHtml(page.banner)}</p>
${page.body}
</main>
</body>
</html>`,
    {
      contentType: "text/html; charset=utf-8",
      status: page.status ?? 200,
      headers: {
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
        "content-security-policy": `default-src 'none'; style-src 'unsafe-inline';${page.csp ? ` ${page.csp};` : ""} frame-ancestors 'none'`
      }
    }
  )

/** A sandbox page that only says what went wrong. */
export const sandboxProblem = (page: Omit<SandboxPage, "body" | "title">, heading: string, message: string, status: number) =>
  sandboxPage({ ...page, title: heading, status, body: `<h1>${escapeHtml(heading)}</h1>\n<p role="alert">${escapeHtml(message)}</p>` })
