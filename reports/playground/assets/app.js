// The playground's page: sign-in state, the catalog, Run / Next page / copy / CSV, and the
// query kept in the URL's hash so that a link reopens it.
import { completeSignIn, currentToken, forgetToken, signIn, signOut } from "./auth.js"
import { readQuery, renderResources, showResource, wireBuilder } from "./builder.js"
import { answerOf, CATALOG_PATH, curlOf, emptyQuery, get, hashOf, jsonOf, queryFromHash, requestOf, send } from "./request.js"
import { clearTable, renderTable } from "./results.js"

const $ = (id) => document.getElementById(id)
let resources = []
let current = null
let runs = 0

const status = (text) => {
  $("status").textContent = text
}

function showProblems(errors, heading) {
  $("problems-heading").textContent = heading
  $("problem-list").replaceChildren(...errors.map((e) => Object.assign(document.createElement("li"), { textContent: e })))
  $("problems").hidden = false
}

const clearProblems = () => {
  $("problems").hidden = true
  $("problem-list").replaceChildren()
}

function signedIn(yes) {
  $("sign-in").hidden = yes
  $("sign-out").hidden = !yes
  $("signed-in").hidden = !yes
  if (!yes) {
    $("query").hidden = true
    $("results").hidden = true
    $("copied").hidden = true
    clearTable()
  }
}

/** A refusal in the API's own words; 401 means the token is gone, so the page asks to sign in again. */
function refused(answer) {
  $("results").hidden = true
  clearTable()
  if (answer.status === 401) {
    forgetToken()
    signedIn(false)
    showProblems(answer.errors, "The API did not accept this sign-in")
    status("Sign in to explore your business's reports.")
    return
  }
  if (answer.status === 403) {
    $("query").hidden = true
    showProblems(answer.errors, "This account cannot use the reports playground")
    status("")
    return
  }
  showProblems(answer.errors, "The API refused")
  status("")
}

const rememberQuery = () => history.replaceState(null, "", `${location.pathname}${location.search}${hashOf(readQuery())}`)

async function openResource(query) {
  status(`Loading the ${query.resource} catalog…`)
  const answer = await get(`${CATALOG_PATH}/${encodeURIComponent(query.resource)}`, currentToken())
  if (answer.errors) return refused(answer)
  showResource(answer.body.data, query, rememberQuery)
  $("query").hidden = false
  rememberQuery()
  status("Choose fields, then Run.")
}

async function loadCatalog() {
  status("Loading the report catalog…")
  const answer = await get(CATALOG_PATH, currentToken())
  if (answer.errors) return refused(answer)
  resources = answer.body.data
  const query = queryFromHash(location.hash) ?? emptyQuery(resources[0]?.id ?? "")
  if (!resources.some((r) => r.id === query.resource)) Object.assign(query, emptyQuery(resources[0]?.id ?? ""))
  renderResources(resources, query.resource)
  await openResource(query)
}

async function run(startingAfter) {
  const query = startingAfter ? current.query : readQuery()
  clearProblems()
  status(startingAfter ? "Loading the next page…" : "Running…")
  const answer = await send(requestOf(query, currentToken(), { startingAfter }))
  if (answer.errors) return refused(answer)
  const { fields, rows, has_more: hasMore, last_key: lastKey } = answer.body.data.attributes
  current = { query, fields, rows: startingAfter ? [...current.rows, ...rows] : rows, hasMore, lastKey }
  $("results").hidden = false
  renderTable(fields, rows, Boolean(startingAfter))
  $("next-page").hidden = !hasMore
  const asOf = answer.body.meta?.data_as_of
  $("result-meta").textContent = `${current.rows.length} row${current.rows.length === 1 ? "" : "s"}${hasMore ? ", more to come" : ""}${asOf ? ` · data as of ${asOf}` : ""}`
  $("results").dataset.run = String(++runs)
  status(`Done: ${rows.length} row${rows.length === 1 ? "" : "s"}.`)
  // The table paints first; the chart follows in a later frame rather than delaying it.
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
  await drawResultChart()
}

async function drawResultChart() {
  const { measuresOf, drawChart } = await import("./chart.js")
  const measures = current.query.group ? measuresOf(current.fields) : []
  $("chart-box").hidden = measures.length === 0
  if (measures.length === 0) return
  const select = $("measure")
  const chosen = measures.some((m) => String(m.index) === select.value) ? select.value : String(measures[0].index)
  select.replaceChildren(...measures.map((m) => Object.assign(document.createElement("option"), { value: String(m.index), textContent: m.name })))
  select.value = chosen
  await drawChart($("chart"), $("chart-box"), current.fields, current.rows, Number(chosen))
}

async function copy(kind) {
  const request = requestOf(readQuery(), currentToken())
  const text = kind === "curl" ? curlOf(request) : jsonOf(request)
  $("copied-label").textContent = kind === "curl" ? "Request as curl" : "Request as JSON"
  $("copied-text").value = text
  $("copied").hidden = false
  let copied = false
  try {
    await navigator.clipboard.writeText(text)
    copied = true
  } catch {
    copied = false
  }
  $("copied-hint").textContent = copied
    ? "Copied to the clipboard. It carries your access token: keep it to yourself."
    : "Select the text below and copy it. It carries your access token: keep it to yourself."
}

/** The same query with `Accept: text/csv`: every row of the result, saved as a file. */
async function downloadCsv() {
  const query = readQuery()
  clearProblems()
  status("Preparing the CSV…")
  const request = requestOf(query, currentToken(), { accept: "text/csv" })
  const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body })
  if (!response.ok) return refused(await answerOf(response))
  if (!(response.headers.get("content-type") ?? "").startsWith("text/csv")) {
    showProblems([`The server answered ${response.headers.get("content-type") ?? "no content type"} instead of CSV.`], "No CSV export here")
    status("")
    return
  }
  const url = URL.createObjectURL(await response.blob())
  const link = Object.assign(document.createElement("a"), { href: url, download: `${query.resource}${query.group ? `-by-${query.group}` : ""}.csv` })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
  status("CSV downloaded.")
}

function wire() {
  wireBuilder()
  $("sign-in").addEventListener("click", () => signIn())
  $("sign-out").addEventListener("click", async () => {
    await signOut()
    signedIn(false)
    clearProblems()
    status("Signed out. The access token was revoked.")
  })
  $("resource").addEventListener("change", () => openResource(emptyQuery($("resource").value)))
  $("query").addEventListener("submit", (event) => {
    event.preventDefault()
    run()
  })
  $("next-page").addEventListener("click", () => run(current.lastKey))
  $("copy-curl").addEventListener("click", () => copy("curl"))
  $("copy-json").addEventListener("click", () => copy("json"))
  $("download-csv").addEventListener("click", () => downloadCsv())
  $("measure").addEventListener("change", () => drawResultChart())
}

async function start() {
  wire()
  const back = await completeSignIn()
  if (back?.error) showProblems([back.error], "Sign-in did not complete")
  if (!currentToken()) {
    signedIn(false)
    status("Sign in to explore your business's reports.")
    return
  }
  signedIn(true)
  await loadCatalog()
}

start().catch((error) => {
  showProblems([String(error?.message ?? error)], "The page failed")
})
