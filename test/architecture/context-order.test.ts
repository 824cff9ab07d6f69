import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { filesUnder, root } from "../support/source-files.ts"

/**
 * The house by context (docs/architecture.md): src/ is a handful of contexts stacked in one
 * order, and a file may import only from its own context or from one below it. An arrow the
 * other way (the schedule calling money, the platform reading reports) must go through a port
 * the lower context declares and the higher one answers, provided in src/app/layers.ts.
 */

/** Lowest first. Contexts on one rank know nothing of each other. */
const RANKS: ReadonlyArray<ReadonlyArray<string>> = [
  ["shared"],
  ["platform"],
  ["access"],
  ["webhooks"],
  ["identity", "reports"],
  ["catalog"],
  ["schedule"],
  ["enrollment"],
  ["billing"],
  ["tools"],
  ["app"]
]
const rankOf = new Map(RANKS.flatMap((names, rank) => names.map((name) => [name, rank] as const)))

/** The context of a repository path: src/<context>/…, reports/… and workers/… (the worker process, part of the app). */
const contextOf = (file: string): string | undefined => {
  const [top, second] = file.split("/")
  if (top === "reports") return "reports"
  if (top === "workers") return "app"
  if (top !== "src" || second === undefined) return undefined
  if (second === "main.ts" || second === "cli.ts") return "app"
  return second
}

const sources = (dir: string) => filesUnder(dir, /\.(ts|js)$/)

const SPECIFIER = /(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g

describe("the contexts' order", () => {
  it("src/ holds only the contexts and the two entry points", () => {
    const entries = fs.readdirSync(path.join(root, "src")).sort()
    const known = [...RANKS.flat().filter((name) => name !== "reports"), "cli.ts", "main.ts"].sort()
    expect(entries).toEqual(known)
  })

  it("every import runs within a context or down to a lower one", () => {
    const against: Array<string> = []
    for (const file of [...sources("src"), ...sources("reports"), ...sources("workers")]) {
      const from = contextOf(file)!
      for (const match of fs.readFileSync(path.join(root, file), "utf8").matchAll(SPECIFIER)) {
        const target = path.relative(root, path.resolve(path.dirname(path.join(root, file)), match[1]!))
        const to = contextOf(target)
        if (to === undefined || to === from) continue
        if (!(rankOf.get(to)! < rankOf.get(from)!)) against.push(`${file} (${from}) -> ${target} (${to})`)
      }
    }
    expect(against).toEqual([])
  })

  it("knows every context it ranks", () => {
    for (const file of [...sources("src"), ...sources("reports"), ...sources("workers")]) {
      expect(rankOf.has(contextOf(file)!), file).toBe(true)
    }
  })
})
