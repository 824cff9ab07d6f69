import { HttpServerResponse } from "effect/http"
import { escapeHtml } from "../../shared/html.ts"
import { type MessageKey, type MessageParams, t } from "../../shared/i18n.ts"
import type { Locale } from "../../shared/locale.ts"

/**
 * The server-rendered pages of the authorization server: login, consent, forgotten and new
 * password, and errors. Plain accessible HTML (labels, autocomplete, alerts, lang), branded
 * with the business's name, color and logo on a business host. No scripts.
 */
export interface PageBranding {
  readonly name: string
  readonly color: string | null
  readonly logoUrl: string | null
}

const escape = escapeHtml

const safeColor = (color: string | null) => (color && /^#[0-9a-fA-F]{3,8}$/.test(color) ? color : "#1f5f8b")

export interface Page {
  readonly locale: Locale
  readonly branding: PageBranding | null
  readonly title: MessageKey
  readonly body: string
  readonly status?: number
  /** Extra response headers (a throttled sign-in's `Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>
}

export const renderPage = (page: Page): HttpServerResponse.HttpServerResponse => {
  const accent = safeColor(page.branding?.color ?? null)
  const logo = page.branding?.logoUrl
    ? `<img class="logo" src="${escape(page.branding.logoUrl)}" alt="${escape(page.branding.name)}" width="75" height="75">`
    : ""
  const html = `<!doctype html>
<html lang="${page.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escape(t(page.locale, page.title))}${page.branding ? ` · ${escape(page.branding.name)}` : ""}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1b1d21; }
  main { max-width: 26rem; margin: 8vh auto; background: #fff; padding: 2rem; border-radius: 12px; box-shadow: 0 2px 12px #0002; }
  h1 { font-size: 1.5rem; margin: 0 0 1rem; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input[type=email], input[type=password] { width: 100%; box-sizing: border-box; padding: .6rem; font: inherit; border: 1px solid #8a8f98; border-radius: 6px; }
  button { margin-top: 1.5rem; padding: .7rem 1.2rem; font: inherit; font-weight: 600; border: 0; border-radius: 6px; background: ${accent}; color: #fff; cursor: pointer; }
  button.secondary { background: #e3e5e8; color: #1b1d21; }
  :focus-visible { outline: 3px solid ${accent}; outline-offset: 2px; }
  .alert { border-left: 4px solid #b00020; background: #fdecee; padding: .75rem; margin: 1rem 0; }
  .notice { border-left: 4px solid ${accent}; background: #eef4f8; padding: .75rem; margin: 1rem 0; }
  .logo { display: block; margin-bottom: 1rem; border-radius: 8px; }
  .actions { display: flex; gap: .75rem; flex-wrap: wrap; }
  p.small { font-size: .9rem; }
</style>
</head>
<body>
<main>
${logo}
${page.body}
</main>
</body>
</html>`
  return HttpServerResponse.text(html, {
    contentType: "text/html; charset=utf-8",
    status: page.status ?? 200,
    headers: {
      ...page.headers,
      "cache-control": "no-store",
      "x-frame-options": "DENY",
      // No form-action: Chromium applies it to the redirect after the consent form, and that
      // redirect goes to the client's own site.
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; frame-ancestors 'none'"
    }
  })
}

/** Helpers for page bodies; every text goes through the catalog and every value is escaped. */
export const text = (locale: Locale, key: MessageKey, params?: MessageParams) => {
  const escaped: Record<string, string> = {}
  for (const [name, value] of Object.entries(params ?? {})) escaped[name] = escape(String(value))
  return t(locale, key, escaped)
}

export const hidden = (fields: Readonly<Record<string, string | undefined>>) =>
  Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join("\n")

export const alert = (message: string) => `<div class="alert" role="alert">${message}</div>`
export const notice = (message: string) => `<div class="notice" role="status">${message}</div>`
export { escapeHtml }
