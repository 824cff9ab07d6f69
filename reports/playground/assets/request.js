// The one place a query becomes an HTTP request: Run, Next page, Download CSV, "Copy as curl"
// and "Copy as JSON" all read the same description, so a copied request is the request sent.

export const JSON_API = "application/vnd.api+json"
export const CATALOG_PATH = "/desk/api/v3/reports"

/** A query as the page keeps it (and the URL carries it). */
export const emptyQuery = (resource = "") => ({ resource, fields: [], group: "", filter: null, sort: [], limit: 100 })

export function attributesOf(query, startingAfter) {
  const attributes = { fields: query.fields }
  if (query.filter) attributes.filter = query.filter
  if (query.group) attributes.group = query.group
  if (query.sort.length > 0) attributes.sort = query.sort
  const page = {}
  if (query.limit) page.limit = query.limit
  if (startingAfter) page.starting_after = startingAfter
  if (Object.keys(page).length > 0) attributes.page = page
  return attributes
}

/** `{ method, url, headers, body }` of a query; `accept` picks JSON:API or the CSV export. */
export function requestOf(query, token, { startingAfter, accept = JSON_API } = {}) {
  return {
    method: "POST",
    url: `${location.origin}${CATALOG_PATH}/${encodeURIComponent(query.resource)}/queries`,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": JSON_API, Accept: accept },
    body: JSON.stringify({ data: { type: "queries", attributes: attributesOf(query, startingAfter) } })
  }
}

const shellQuote = (text) => `'${text.replace(/'/g, `'\\''`)}'`

export function curlOf(request) {
  const headers = Object.entries(request.headers).map(([name, value]) => ` \\\n  -H ${shellQuote(`${name}: ${value}`)}`)
  return `curl -sS -X ${request.method} ${shellQuote(request.url)}${headers.join("")} \\\n  --data-raw ${shellQuote(request.body)}`
}

export const jsonOf = (request) =>
  JSON.stringify({ method: request.method, url: request.url, headers: request.headers, body: JSON.parse(request.body) }, null, 2)

/** Sends a described request; answers `{ status, body }` with the JSON body, or `{ status, errors }`. */
export async function send(request) {
  const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body })
  return answerOf(response)
}

export async function get(path, token) {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${token}`, Accept: JSON_API } })
  return answerOf(response)
}

/**
 * The API's own words: its `errors` array (the error model), or the `error` string of the Core
 * API's staff-only refusal, or the status line when the body has neither.
 */
export async function answerOf(response) {
  const text = await response.text()
  let body = null
  try {
    body = text === "" ? null : JSON.parse(text)
  } catch {
    body = null
  }
  if (response.ok && body !== null) return { status: response.status, body }
  const errors = Array.isArray(body?.errors) && body.errors.length > 0
    ? body.errors.map((e) => (typeof e === "string" ? e : e.detail ?? e.title ?? JSON.stringify(e)))
    : typeof body?.error === "string"
      ? [body.error]
      : [`HTTP ${response.status} ${response.statusText}`.trim()]
  return { status: response.status, errors }
}

/** The query in the URL's hash, so that a link reopens it. */
export const hashOf = (query) => `#q=${encodeURIComponent(JSON.stringify(query))}`

export function queryFromHash(hash) {
  const match = /^#q=(.*)$/.exec(hash)
  if (!match) return null
  try {
    const parsed = JSON.parse(decodeURIComponent(match[1]))
    if (typeof parsed !== "object" || parsed === null || typeof parsed.resource !== "string") return null
    return {
      ...emptyQuery(parsed.resource),
      fields: Array.isArray(parsed.fields) ? parsed.fields.filter((f) => typeof f === "string") : [],
      group: typeof parsed.group === "string" ? parsed.group : "",
      filter: Array.isArray(parsed.filter) ? parsed.filter : null,
      sort: Array.isArray(parsed.sort) ? parsed.sort.filter((s) => typeof s === "string") : [],
      limit: Number.isInteger(parsed.limit) ? parsed.limit : 100
    }
  } catch {
    return null
  }
}
