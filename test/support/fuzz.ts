import * as fs from "node:fs"

/**
 * Out-of-range replay, a tool rather than a test: with `FUZZ_LOG=<file>`, every request a test
 * sends with a JSON body (or a GET with a query) is first sent again in variants, each with one
 * number pushed past 32 (and 53) bits, one date pushed to the calendar's edges or one text made
 * empty, blank or longer than any column allows, and every variant answered 5xx is appended to
 * the file as a JSON line. The test's own request goes out afterwards, unchanged.
 *
 *   FUZZ_LOG=/tmp/fuzz.jsonl npx vitest run; cat /tmp/fuzz.jsonl
 *
 * The variants may write (a refused one never does), so some tests fail in such a run; what
 * counts is the file. It reaches what test/http/bad-input-sweep.test.ts cannot: fields past the
 * decoders and the rules, in bodies the tests made valid.
 */
export const FUZZ_LOG = process.env.FUZZ_LOG
/**
 * `FUZZ_MODE=race` replays differently: each write (POST, PUT, PATCH, DELETE) goes out
 * `RACE_COPIES` more times at once, together with the test's own request, as a client that
 * double-submits or retries does; every 5xx among the copies is logged, and every write that
 * more than one of them did while a repeat after them is refused. Only the test's own answer
 * reaches the test.
 */
export const FUZZ_MODE = process.env.FUZZ_MODE === "race" ? "race" : "range"
/** Copies sent beside the test's own request (FUZZ_RACE_COPIES, default 3: four at once). */
const RACE_COPIES = Math.max(1, Number(process.env.FUZZ_RACE_COPIES ?? 3) || 3)

const NUMBERS: ReadonlyArray<number> = [2147483648, -2147483649, 9007199254740991, 99999999999]
const DATES: ReadonlyArray<string> = ["275760-09-13T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31", "1000-01-01"]
/** Text past every column's length check (the longest, a note's, is 10,000), blank, and empty. */
const STRINGS: ReadonlyArray<string> = ["", " ", "a".repeat(10_001)]
const MAX_VARIANTS = 200

/** The body with one number (or digits string), one date or one text replaced, for each such leaf. */
export const outOfRangeVariants = (body: unknown): Array<unknown> => {
  const variants: Array<unknown> = []
  const walk = (node: unknown, replace: (value: unknown) => unknown, depth: number): void => {
    if (depth > 6) return
    if (Array.isArray(node)) {
      if (node.length <= 50) node.forEach((item, i) => walk(item, (value) => replace(node.map((x, j) => (j === i ? value : x))), depth + 1))
    } else if (node !== null && typeof node === "object") {
      for (const [key, child] of Object.entries(node)) walk(child, (value) => replace({ ...node, [key]: value }), depth + 1)
    } else if (typeof node === "number" || (typeof node === "string" && /^\d+$/.test(node))) {
      for (const value of NUMBERS) variants.push(replace(value))
    } else if (typeof node === "string" && /^\d{4}-\d\d-\d\d/.test(node)) {
      for (const value of DATES) variants.push(replace(value))
    } else if (typeof node === "string") {
      for (const value of STRINGS) variants.push(replace(value))
    }
  }
  walk(body, (value) => value, 0)
  return variants.slice(0, MAX_VARIANTS)
}

/** The path with one query value (digits, a list of them, or a date) replaced, for each such value. */
export const outOfRangeQueries = (path: string): Array<string> => {
  const [base, search] = path.split("?", 2)
  if (search === undefined) return []
  const params = [...new URLSearchParams(search)]
  const variants: Array<string> = []
  params.forEach(([, value], i) => {
    const replacements = /^\d+(,\d+)*$/.test(value) ? NUMBERS.map(String) : /^\d{4}-\d\d-\d\d/.test(value) ? DATES : []
    for (const replacement of replacements) {
      const query = new URLSearchParams(params.map(([key, v], j): [string, string] => [key, j === i ? replacement : v]))
      variants.push(`${base}?${query.toString()}`)
    }
  })
  return variants.slice(0, MAX_VARIANTS)
}

type Answer = { readonly status: number; readonly text: string }

const logged = async (method: string, path: string, body: string | undefined, answer: Promise<Answer>) => {
  const { status, text } = await answer.catch((error: unknown) => ({ status: 599, text: String(error) }))
  // 503 is an answer of its own (reports still being prepared, a database away), not a failure.
  if (status >= 500 && status !== 503) fs.appendFileSync(FUZZ_LOG!, JSON.stringify({ method, path, body: body?.slice(0, 2000), status, text: text.slice(0, 400) }) + "\n")
  return status
}

/** Sends each body variant through `send` and logs the 5xx answers to FUZZ_LOG. */
export const replayOutOfRange = async (method: string, path: string, body: unknown, send: (payload: string) => Promise<Answer>) => {
  if (FUZZ_LOG === undefined) return
  for (const variant of outOfRangeVariants(body)) {
    const payload = JSON.stringify(variant)
    await logged(method, path, payload, send(payload))
  }
}

/**
 * The test's own write (`own`), sent together with RACE_COPIES copies of it; the copies' 5xx
 * answers go to FUZZ_LOG. Then one more copy goes out alone, after them: when it is refused
 * (4xx, a repeat after the fact: the visit is already no-showed, the note already gone) while
 * more than one copy at once succeeded, the repeats at once did what a repeat after does not
 * (each deleted, changed state or announced again), and that goes to FUZZ_LOG too.
 */
export const raceCopies = async (method: string, path: string, body: string | undefined, own: Promise<Answer>, send: () => Promise<Answer>) => {
  const statuses = await Promise.all([
    own.then((answer) => answer.status, () => 599),
    ...Array.from({ length: RACE_COPIES }, () => logged(method, path, body, send()))
  ])
  const done = statuses.filter((status) => status >= 200 && status < 300).length
  const after = await logged(method, path, body, send())
  if (done > 1 && after >= 400 && after < 500) {
    fs.appendFileSync(FUZZ_LOG!, JSON.stringify({ method, path, body: body?.slice(0, 2000), status: statuses, text: `${done} done at once, a repeat after answered ${after}` }) + "\n")
  }
}

/** Sends each query variant of a read through `send` and logs the 5xx answers to FUZZ_LOG. */
export const replayOutOfRangeQuery = async (path: string, send: (path: string) => Promise<Answer>) => {
  if (FUZZ_LOG === undefined) return
  for (const variant of outOfRangeQueries(path)) await logged("GET", variant, undefined, send(variant))
}
