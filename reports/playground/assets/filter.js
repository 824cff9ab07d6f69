// The filter editor: a tree of `and`/`or` groups and conditions, written out in the grammar
// (["and", [["eq", "field", value], ["or", [...]]]]) and read back from it.

const NUMERIC = new Set(["integer", "currency", "float"])
const ARITY = { emp: 0, nemp: 0, btw: 2 }
const LABELS = {
  eq: "equals", ne: "does not equal", gt: "greater than", lt: "less than", btw: "between",
  contains: "contains", wo: "does not contain", starts: "starts with", ends: "ends with",
  emp: "is empty", nemp: "is not empty"
}

let uid = 0
const nextId = (prefix) => `${prefix}-${++uid}`

const group = (op = "and", children = []) => ({ kind: "group", op, children })
const condition = (field = "", op = "eq", values = [""]) => ({ kind: "cond", field, op, values })

/** Grammar → tree; anything unreadable starts an empty tree rather than failing the page. */
function nodeOf(filter) {
  if (!Array.isArray(filter) || typeof filter[0] !== "string") return null
  const [op, ...args] = filter
  if (op === "and" || op === "or") return group(op, (Array.isArray(args[0]) ? args[0] : []).map(nodeOf).filter(Boolean))
  if (op === "btw" && Array.isArray(args[1])) return condition(String(args[0]), op, args[1].map(String))
  return condition(String(args[0] ?? ""), op, args.slice(1).map((v) => (v === null ? "" : String(v))))
}

export function treeOf(filter) {
  const node = nodeOf(filter)
  if (node === null) return group()
  return node.kind === "group" ? node : group("and", [node])
}

const valueOf = (text, type) => {
  if (NUMERIC.has(type) && text.trim() !== "" && Number.isFinite(Number(text))) return Number(text)
  return text
}

function grammarOf(node, types) {
  if (node.kind === "group") {
    const children = node.children.map((child) => grammarOf(child, types)).filter(Boolean)
    return children.length === 0 ? null : [node.op, children]
  }
  if (!node.field) return null
  const values = node.values.slice(0, ARITY[node.op] ?? 1).map((v) => valueOf(v, types.get(node.field)))
  return [node.op, node.field, ...values]
}

/** The tree in the grammar: null when empty; a root `and` of one condition is that condition. */
export function filterOf(tree, types) {
  const grammar = grammarOf(tree, types)
  if (grammar === null) return null
  if (grammar[0] === "and" && grammar[1].length === 1) return grammar[1][0]
  return grammar
}

const element = (tag, props = {}, children = []) => {
  const el = document.createElement(tag)
  Object.assign(el, props)
  for (const child of children) el.append(child)
  return el
}

const labelled = (text, control) => {
  control.id ||= nextId("filter")
  return [element("label", { htmlFor: control.id, textContent: text }), control]
}

const select = (options, value) => {
  const el = element("select")
  for (const [optionValue, text] of options) el.append(element("option", { value: optionValue, textContent: text }))
  el.value = value
  return el
}

function drawCondition(ctx, node, parent) {
  const { fields, byName, edit, changed } = ctx
  const field = byName.get(node.field)
  const fieldSelect = select([["", "Choose a field"], ...fields.map((f) => [f.name, `${f.name} (${f.type})`])], node.field)
  fieldSelect.addEventListener("change", () => {
    node.field = fieldSelect.value
    const operators = byName.get(node.field)?.operators ?? []
    if (!operators.includes(node.op)) node.op = operators[0] ?? "eq"
    edit()
  })
  const operators = field?.operators ?? Object.keys(LABELS)
  const opSelect = select(operators.map((op) => [op, `${op} — ${LABELS[op] ?? op}`]), node.op)
  opSelect.addEventListener("change", () => {
    node.op = opSelect.value
    edit()
  })
  const row = element("div", { className: "filter-row" }, [...labelled("Field", fieldSelect), ...labelled("Operation", opSelect)])
  const arity = ARITY[node.op] ?? 1
  while (node.values.length < arity) node.values.push("")
  for (let i = 0; i < arity; i++) {
    // Enum fields offer their values for equality; other inputs follow the field's type.
    const input = field?.values && (node.op === "eq" || node.op === "ne")
      ? select([["", "Choose a value"], ...field.values.map((v) => [v, v])], node.values[i])
      : element("input", { type: field && NUMERIC.has(field.type) ? "number" : field?.type === "date" ? "date" : "text", value: node.values[i], step: "any" })
    input.addEventListener("change", () => {
      node.values[i] = input.value
      changed()
    })
    row.append(...labelled(arity === 2 ? (i === 0 ? "From" : "To") : "Value", input))
  }
  row.append(removeButton("Remove condition", parent, node, edit))
  return row
}

const removeButton = (text, parent, node, edit) => {
  const button = element("button", { type: "button", className: "secondary small", textContent: text })
  button.addEventListener("click", () => {
    parent.children.splice(parent.children.indexOf(node), 1)
    edit()
  })
  return button
}

function drawGroup(ctx, node, parent, depth) {
  const { fields, edit, changed } = ctx
  const opSelect = select([["and", "all of (and)"], ["or", "any of (or)"]], node.op)
  opSelect.addEventListener("change", () => {
    node.op = opSelect.value
    changed()
  })
  const head = element("div", { className: "filter-head" }, labelled(depth === 0 ? "Rows matching" : "Nested group: rows matching", opSelect))
  const box = element("div", { className: "filter-group", role: "group" }, [head])
  for (const child of node.children) box.append(child.kind === "group" ? drawGroup(ctx, child, node, depth + 1) : drawCondition(ctx, child, node))
  const first = () => condition(fields[0]?.name ?? "", fields[0]?.operators[0] ?? "eq")
  const addCondition = element("button", { type: "button", className: "secondary small", textContent: "Add condition" })
  addCondition.addEventListener("click", () => {
    node.children.push(first())
    edit()
  })
  const addGroup = element("button", { type: "button", className: "secondary small", textContent: "Add and/or group" })
  addGroup.addEventListener("click", () => {
    node.children.push(group(node.op === "and" ? "or" : "and", [first()]))
    edit()
  })
  const actions = element("div", { className: "filter-row" }, [addCondition, addGroup])
  if (parent !== null) actions.append(removeButton("Remove group", parent, node, edit))
  box.append(actions)
  return box
}

/**
 * Draws the editor into `container` for `fields` (the resource's filterable names with their
 * operators and enum values); `changed` runs after every edit.
 */
export function renderFilter(container, tree, fields, changed) {
  const ctx = { fields, byName: new Map(fields.map((f) => [f.name, f])), changed, edit: () => {} }
  const redraw = () => container.replaceChildren(drawGroup(ctx, tree, null, 0))
  ctx.edit = () => {
    redraw()
    changed()
  }
  redraw()
}
