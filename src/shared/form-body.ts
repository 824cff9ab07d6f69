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

export const parseRailsForm = (body: string): Node => {
  const root: Node = {}
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const path = splitKey(rawKey)
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
  return root
}
