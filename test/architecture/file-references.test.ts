import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { filesUnder, root } from "../support/source-files.ts"

/**
 * Comments and docs point readers at files ("answered by src/billing/punches/ports-live.ts"); a
 * move that forgets them leaves a newcomer at a dead end. Every repository path they name must
 * exist. docs/decisions.md is left out: it records history, including files since merged.
 */
const PATH = /(?<![\w/.])((?:src|reports|workers|test|bench|sql|docs|deploy)\/[A-Za-z0-9_./-]+\.(?:ts|sql|md|js|json|yml))\b/g

const files = (dir: string) => filesUnder(dir, /\.(ts|md)$/)

describe("file references", () => {
  it("every file a source comment or a doc names exists", () => {
    const readers = [...files("src"), ...files("reports"), ...files("workers"), ...files("docs"), "README.md"].filter(
      (file) => file !== "docs/decisions.md"
    )
    const dead: Array<string> = []
    for (const file of readers) {
      fs.readFileSync(path.join(root, file), "utf8").split("\n").forEach((line, index) => {
        for (const match of line.matchAll(PATH)) {
          if (!fs.existsSync(path.join(root, match[1]!))) dead.push(`${file}:${index + 1}: ${match[1]}`)
        }
      })
    }
    expect(dead).toEqual([])
  })
})
