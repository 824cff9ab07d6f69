/**
 * List parameters in the array form client libraries write (compatibility notes, Requests):
 * Ruby's HTTParty, Rails and jQuery send `location_ids[]=2&location_ids[]=3`, PHP's
 * `http_build_query` `location_ids[0]=2&location_ids[1]=3`. Every list parameter of the API
 * is declared comma-delimited (`location_ids=2,3`), so the query is rewritten once, before
 * routing, into that form: a list parameter reads the same whichever way it was written, and
 * an unreadable value in it is the same 400 as in the comma form.
 *
 * Only `name[]` and `name[<digits>]` are folded; other bracketed names (`page[size]`,
 * `filter[status]` of the JSON:API endpoints) are names of their own and stay as they are.
 * A plain `name` next to its array form joins the same list. Empty array items (`name[]=`,
 * what a form sends for an empty list) are dropped unless nothing else is given.
 */
const ARRAY_KEY = /^([^[\]]+)\[(\d*)\]$/

/** The query string (`?...` or empty) with array-form list parameters folded, or `search` itself. */
export const foldArrayParams = (search: string): string => {
  if (!search.includes("[") && !/%5b/i.test(search)) return search
  const params = new URLSearchParams(search)
  const lists = new Map<string, Array<string>>()
  for (const [key, value] of params) {
    const base = ARRAY_KEY.exec(key)?.[1]
    if (base !== undefined) lists.set(base, [...(lists.get(base) ?? []), value])
  }
  if (lists.size === 0) return search
  const out = new URLSearchParams()
  const written = new Set<string>()
  for (const [key, value] of params) {
    const base = ARRAY_KEY.exec(key)?.[1] ?? key
    const items = lists.get(base)
    if (items === undefined) {
      out.append(key, value)
      continue
    }
    if (written.has(base)) continue
    written.add(base)
    const all = [...params.getAll(base), ...items]
    const given = all.filter((item) => item.trim() !== "")
    out.append(base, (given.length > 0 ? given : all).join(","))
  }
  return `?${out.toString()}`
}
