// The query form: resource, grouping, fields (searchable, with the catalog's descriptions),
// filter, sort and page size. It reads the served catalog; it knows no field names itself.
import { filterOf, renderFilter, treeOf } from "./filter.js"

const $ = (id) => document.getElementById(id)
const BUCKET = /_(week_mon|week_sun|month|quarter|year)_start_date$/

let described = null
let query = null
let tree = null
let changed = () => {}

const option = (value, text) => Object.assign(document.createElement("option"), { value, textContent: text })

export function renderResources(resources, selected) {
  $("resource").replaceChildren(...resources.map((r) => option(r.id, r.id)))
  $("resource").value = selected
}

/** Fields of the current mode: summary fields with a grouping, detail (and logical) fields without. */
const offeredFields = () =>
  query.group
    ? described.summary_fields
    : [...described.detail_fields, ...described.logical_fields.map((l) => ({ ...l, type: "logical" }))]

/** Names a filter may use: detail fields and groupings (a filter picks rows before grouping). */
const filterableFields = () => {
  const seen = new Map()
  for (const f of [...described.detail_fields, ...described.groupings]) if (f.filterable && !seen.has(f.name)) seen.set(f.name, f)
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name))
}

function drawGroups() {
  const buckets = described.groupings.filter((g) => BUCKET.test(g.name))
  const others = described.groupings.filter((g) => !BUCKET.test(g.name))
  const optgroup = (label, list) => {
    const el = Object.assign(document.createElement("optgroup"), { label })
    el.append(...list.map((g) => option(g.name, g.name)))
    return el
  }
  $("group").replaceChildren(option("", "No grouping (detail rows)"), optgroup("Groupings", others), optgroup("Date buckets", buckets))
  $("group").value = query.group
}

function drawFields() {
  const list = $("field-list")
  list.replaceChildren()
  for (const field of offeredFields()) {
    const id = `field-${field.name}`
    const box = Object.assign(document.createElement("input"), { type: "checkbox", id, value: field.name, checked: query.fields.includes(field.name) })
    box.setAttribute("aria-describedby", `${id}-description`)
    box.addEventListener("change", () => {
      query.fields = box.checked ? [...query.fields, field.name] : query.fields.filter((f) => f !== field.name)
      drawSort()
      changed()
    })
    const label = Object.assign(document.createElement("label"), { htmlFor: id, textContent: field.name })
    const type = Object.assign(document.createElement("span"), { className: "type", textContent: field.type })
    const description = Object.assign(document.createElement("span"), { className: "description", id: `${id}-description`, textContent: field.description ?? "" })
    const item = document.createElement("li")
    item.dataset.search = `${field.name} ${field.description ?? ""}`.toLowerCase()
    item.append(box, " ", label, type, description)
    list.append(item)
  }
  applySearch()
}

function applySearch() {
  const words = $("field-search").value.toLowerCase().split(/\s+/).filter(Boolean)
  for (const item of $("field-list").children) item.hidden = !words.every((w) => item.dataset.search.includes(w))
}

function drawSort() {
  const names = [...(query.group ? ["group_label"] : []), ...query.fields]
  query.sort = query.sort.filter((s) => names.includes(s.replace(/[+-]$/, "")))
  const list = $("sort-list")
  list.replaceChildren()
  query.sort.forEach((key, index) => {
    const name = key.replace(/[+-]$/, "")
    const item = document.createElement("li")
    const field = Object.assign(document.createElement("select"), { id: `sort-field-${index}` })
    field.append(...names.map((n) => option(n, n)))
    field.value = name
    const direction = Object.assign(document.createElement("select"), { id: `sort-direction-${index}` })
    direction.append(option("+", "ascending"), option("-", "descending"))
    direction.value = key.endsWith("-") ? "-" : "+"
    const update = () => {
      query.sort[index] = `${field.value}${direction.value}`
      changed()
    }
    field.addEventListener("change", update)
    direction.addEventListener("change", update)
    const remove = Object.assign(document.createElement("button"), { type: "button", className: "secondary small", textContent: "Remove sort key" })
    remove.addEventListener("click", () => {
      query.sort.splice(index, 1)
      drawSort()
      changed()
    })
    const label = (control, text) => Object.assign(document.createElement("label"), { htmlFor: control.id, textContent: text })
    item.append(label(field, "Sort by"), field, label(direction, "Direction"), direction, remove)
    list.append(item)
  })
  $("add-sort").disabled = names.length === 0
}

const typesOf = () => new Map(filterableFields().map((f) => [f.name, f.type]))

/** Draws the form for one resource's catalog and the query to start from. */
export function showResource(catalog, startQuery, onChange) {
  described = catalog.attributes
  query = { ...startQuery, fields: [...startQuery.fields], sort: [...startQuery.sort] }
  changed = () => {
    query.filter = filterOf(tree, typesOf())
    onChange()
  }
  tree = treeOf(query.filter)
  drawGroups()
  drawFields()
  renderFilter($("filter"), tree, filterableFields(), changed)
  drawSort()
  $("limit").value = String(query.limit)
}

export const readQuery = () => ({ ...query, filter: filterOf(tree, typesOf()), limit: Number.parseInt($("limit").value, 10) || 100 })

/** Wires the controls that outlive a resource switch (called once). */
export function wireBuilder() {
  $("field-search").addEventListener("input", applySearch)
  $("group").addEventListener("change", () => {
    const wasGrouped = Boolean(query.group)
    query.group = $("group").value
    // Detail and summary fields never mix: switching modes keeps only what the new one offers.
    if (wasGrouped !== Boolean(query.group)) {
      const offered = new Set(offeredFields().map((f) => f.name))
      query.fields = query.fields.filter((f) => offered.has(f))
    }
    drawFields()
    drawSort()
    changed()
  })
  $("add-sort").addEventListener("click", () => {
    const names = [...(query.group ? ["group_label"] : []), ...query.fields]
    if (names.length === 0) return
    query.sort.push(`${names[0]}+`)
    drawSort()
    changed()
  })
  $("limit").addEventListener("change", () => changed())
}
