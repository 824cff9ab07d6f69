import * as fs from "node:fs"
import * as path from "node:path"

/** The repository's root, which the paths below are relative to. */
export const root = path.resolve(import.meta.dirname, "../..")

/** The files under `dir` (relative to the root) whose names match `names`, as root-relative paths; node_modules left out. */
export const filesUnder = (dir: string, names: RegExp): Array<string> =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(relative, names)
    return names.test(entry.name) ? [relative] : []
  })
