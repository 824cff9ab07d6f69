/**
 * "Did you mean": the valid names closest to a misspelt one. Close is an edit
 * distance (insertions, deletions, substitutions and swaps of neighbours) within a third of
 * the name, or a name that contains the misspelt one as a word (`name` → `full_name`): a new
 * user guesses the short word more often than they mistype the long one.
 */

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a substring). */
export const editDistance = (a: string, b: string): number => {
  const rows = a.length + 1
  const cols = b.length + 1
  const d: Array<Array<number>> = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

const MAX_HINTED_LENGTH = 64

/** At most `max` valid names close to `name`, closest first (ties alphabetically); none when nothing is close. */
export const closestNames = (name: string, valid: Iterable<string>, max = 3): ReadonlyArray<string> => {
  // Catalog names are short; a long one is no misspelling of them, and its distances would cost
  // its length times theirs for every name of the catalog (bounded input).
  if (name.length > MAX_HINTED_LENGTH) return []
  const wanted = name.toLowerCase()
  // Longer names allow more edits; a name of 1–5 characters allows 1 or 2.
  const allowed = Math.max(1, Math.floor(wanted.length / 3))
  const scored: Array<{ name: string; distance: number }> = []
  for (const candidate of new Set(valid)) {
    const distance = editDistance(wanted, candidate.toLowerCase())
    const asWord = wanted.length >= 3 && candidate.toLowerCase().split("_").includes(wanted)
    if (distance <= allowed || asWord) scored.push({ name: candidate, distance })
  }
  scored.sort((x, y) => x.distance - y.distance || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
  return scored.slice(0, max).map((s) => s.name)
}

/** The names as a message shows them: `a`, `b` or `c`. */
export const listed = (names: ReadonlyArray<string>): string =>
  names.map((n) => `\`${n}\``).join(", ")
