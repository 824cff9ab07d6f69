/**
 * Rails-style form bodies (`visit[person_id]=1&pack[person_ids][]=7`) to the nested object
 * the JSON body would have been. Values stay strings; the endpoint's Schema decodes them
 * (shared/schemas.ts accepts digits for integers and `true`/`false`/`1`/`0` for booleans).
 */
type Node = { [key: string]: unknown }

const splitKey = (key: string): Array<string> | undefined => {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key)
  if (!match) return undefined
  const rest = [...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)
  return [match[1]!, ...rest]
}

const isDangerous = (segment: string) => segment === "__proto__" || segment === "constructor" || segment === "prototype"

/**
 * Bounds of a form body, as Rack's (`param_depth_limit` 32, `params_limit` 4096): a body inside
 * the size limit can still hold thousands of levels (a stack overflow further on) or tens of
 * thousands of tiny fields. A browser form or a script never comes near either.
 */
export const FORM_MAX_DEPTH = 32
export const FORM_MAX_FIELDS = 4_096

/** A form body as its object, or why it is refused (a message key and its bound). */
export type FormParse =
  | { readonly _tag: "Ok"; readonly value: Node }
  | { readonly _tag: "Refused"; readonly key: "form_too_deep" | "form_too_many_fields" | "nul_character"; readonly max?: number }

export const parseRailsForm = (body: string): FormParse => {
  const root: Node = {}
  let fields = 0
  for (const [rawKey, value] of new URLSearchParams(body)) {
    if (++fields > FORM_MAX_FIELDS) return { _tag: "Refused", key: "form_too_many_fields", max: FORM_MAX_FIELDS }
    // PostgreSQL text cannot hold NUL: refused here rather than failing a query later.
    if (rawKey.includes("\0") || value.includes("\0")) return { _tag: "Refused", key: "nul_character" }
    const path = splitKey(rawKey)
    if (path && path.length > FORM_MAX_DEPTH) return { _tag: "Refused", key: "form_too_deep", max: FORM_MAX_DEPTH }
    if (!path || path.some(isDangerous)) continue
    let node: Node | Array<unknown> = root
    for (let i = 0; i < path.length; i++) {
      const segment = path[i]!
      const last = i === path.length - 1
      const nextIsArray = path[i + 1] === ""
      if (Array.isArray(node)) {
        if (segment !== "") break
        if (last) {
          node.push(value)
        } else {
          // `a[][x]=1&a[][y]=2` fills one element until a key repeats (Rails semantics).
          const key = path[i + 1]!
          let element = node[node.length - 1] as Node | undefined
          if (!element || typeof element !== "object" || key in element) {
            element = {}
            node.push(element)
          }
          node = element
        }
        continue
      }
      if (last) {
        node[segment] = value
      } else {
        const existing: unknown = node[segment]
        if (nextIsArray) {
          node = Array.isArray(existing) ? existing : (node[segment] = [])
        } else {
          node = existing && typeof existing === "object" && !Array.isArray(existing) ? (existing as Node) : (node[segment] = {})
        }
      }
    }
  }
  return { _tag: "Ok", value: root }
}
