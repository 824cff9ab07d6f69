/** Reading a CSV export back, for the export tests. */

/** RFC 4180: fields, with `null` for an empty unquoted field (NULL) and `""` for a quoted empty one. */
export const parseCsv = (text: string): Array<Array<string | null>> => {
  const rows: Array<Array<string | null>> = []
  let row: Array<string | null> = []
  let i = 0
  while (i < text.length) {
    let value: string | null
    if (text[i] === '"') {
      let end = i + 1
      value = ""
      for (;;) {
        const quote = text.indexOf('"', end)
        if (quote === -1) throw new Error("unterminated quote")
        value += text.slice(end, quote)
        if (text[quote + 1] === '"') {
          value += '"'
          end = quote + 2
        } else {
          i = quote + 1
          break
        }
      }
    } else {
      let end = i
      while (end < text.length && text[end] !== "," && text[end] !== "\r") end++
      value = end === i ? null : text.slice(i, end)
      i = end
    }
    row.push(value)
    if (text[i] === ",") i++
    else if (text.startsWith("\r\n", i)) {
      rows.push(row)
      row = []
      i += 2
    } else if (i < text.length) throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`)
  }
  return rows
}

/** A JSON cell as the CSV writes it (numbers as JavaScript writes them, a range `start/end`). */
export const csvOf = (value: unknown): string | null =>
  value === null ? null : Array.isArray(value) ? value.map((end) => end ?? "").join("/") : String(value)
