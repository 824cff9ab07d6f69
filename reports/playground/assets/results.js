// The rows as a table: one column per returned field (group_label first in summary rows).
const $ = (id) => document.getElementById(id)
const NUMERIC = new Set(["integer", "currency", "float"])

const cellText = (value) => (value === null || value === undefined ? "" : Array.isArray(value) ? value.join(" – ") : String(value))

/** Draws the header and `rows`; with `append` the rows follow those already shown (Next page). */
export function renderTable(fields, rows, append) {
  const table = $("table")
  const head = table.tHead
  if (!append) {
    const tr = document.createElement("tr")
    for (const field of fields) {
      const th = Object.assign(document.createElement("th"), { scope: "col", textContent: field.name })
      th.title = field.type
      tr.append(th)
    }
    head.replaceChildren(tr)
    table.tBodies[0].replaceChildren()
  }
  const body = table.tBodies[0]
  for (const row of rows) {
    const tr = document.createElement("tr")
    row.forEach((value, i) => {
      const td = Object.assign(document.createElement("td"), { textContent: cellText(value) })
      if (NUMERIC.has(fields[i]?.type)) td.className = "number"
      tr.append(td)
    })
    body.append(tr)
  }
  $("table-caption").textContent = `${body.rows.length} row${body.rows.length === 1 ? "" : "s"} shown`
}

export function clearTable() {
  $("table").tHead.replaceChildren()
  $("table").tBodies[0].replaceChildren()
}
