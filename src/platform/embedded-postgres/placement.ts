import { execFileSync, spawnSync } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * Where the embedded PostgreSQL runs (src/platform/embedded-postgres.ts): its binaries, the
 * user `postgres` they run as under root, and folders that user can reach (the binaries and
 * the cluster placed elsewhere, behind a link, when it cannot reach the project's).
 */

/** A start that cannot happen, told in one line (no stack trace is shown for it). */
export class EmbeddedPostgresError extends Error {
  override readonly name = "EmbeddedPostgresError"
}

export const USER = "postgres"

const isRoot = () => process.getuid?.() === 0

export interface Binaries {
  readonly postgres: string
  readonly initdb: string
}

const loadBinaries = async (): Promise<Binaries & { readonly root: string; readonly version: string }> => {
  const name = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`
  let module: { postgres: string; initdb: string }
  try {
    module = (await import(name)) as typeof module
  } catch {
    throw new EmbeddedPostgresError(`no PostgreSQL binaries for ${process.platform}-${process.arch} (package ${name}): run npm install, or set DATABASE_URL`)
  }
  const root = path.resolve(path.dirname(module.postgres), "..", "..")
  const version = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version
  return { postgres: module.postgres, initdb: module.initdb, root, version }
}

export interface Ids {
  readonly uid: number
  readonly gid: number
}

/** As root: the ids of user `postgres`, created (like embedded-postgres does) when missing. */
export const postgresUser = (): Ids | undefined => {
  if (!isRoot()) return undefined
  const read = () => ({
    uid: Number(execFileSync("id", ["-u", USER], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()),
    gid: Number(execFileSync("id", ["-g", USER], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim())
  })
  try {
    return read()
  } catch {
    try {
      spawnSync("groupadd", [USER], { stdio: "ignore" })
      execFileSync("useradd", ["-g", USER, USER], { stdio: "ignore" })
      return read()
    } catch {
      throw new EmbeddedPostgresError(
        "PostgreSQL does not run as root, and user postgres could not be created: create it (useradd postgres), run as another user, or set DATABASE_URL"
      )
    }
  }
}

/** Whether `user` may use `target` (`-x`: execute a file or traverse into a folder), as the kernel decides. */
const canUse = (user: Ids, target: string) =>
  spawnSync("test", ["-x", target], { uid: user.uid, gid: user.gid, cwd: "/", stdio: "ignore" }).status === 0

const mkdirPublic = (dir: string) => {
  fs.mkdirSync(dir, { recursive: true })
  fs.chmodSync(dir, 0o755)
}

/** A root-owned folder every user can traverse: /var/lib/studio-service, else one in the temp folder. */
const publicHome = (user: Ids): string => {
  for (const home of ["/var/lib/studio-service", path.join(os.tmpdir(), "studio-service")]) {
    try {
      mkdirPublic(home)
      if (canUse(user, home)) return home
    } catch {
      // not writable here: the next one
    }
  }
  throw new EmbeddedPostgresError(
    "user postgres cannot reach the project's folder, and neither /var/lib/studio-service nor the temp folder could be prepared for it: " +
      "move the checkout to a folder all users can traverse, or set DATABASE_URL"
  )
}

/** Hard links of a folder tree (copies across file systems), folders 0755. */
const linkTree = (from: string, to: string) => {
  mkdirPublic(to)
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name)
    const target = path.join(to, entry.name)
    if (entry.isDirectory()) linkTree(source, target)
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target)
    else {
      try {
        fs.linkSync(source, target)
      } catch {
        fs.copyFileSync(source, target)
        fs.chmodSync(target, fs.statSync(source).mode & 0o7777)
      }
    }
  }
}

/** The binaries where `user` can run them: in node_modules when it can traverse there, else a placed copy. */
export const reachableBinaries = async (user: Ids | undefined): Promise<Binaries> => {
  const binaries = await loadBinaries()
  if (!user || canUse(user, binaries.postgres)) return binaries
  const target = path.join(publicHome(user), `postgresql-${binaries.version}-${process.platform}-${process.arch}`)
  if (!fs.existsSync(path.join(target, "bin", "postgres"))) {
    // Built aside and renamed into place: a process that finds the folder finds it complete.
    const building = `${target}.${process.pid}`
    fs.rmSync(building, { recursive: true, force: true })
    linkTree(path.join(binaries.root, "native"), building)
    try {
      fs.renameSync(building, target)
    } catch {
      fs.rmSync(building, { recursive: true, force: true }) // another process placed it first
    }
  }
  return { postgres: path.join(target, "bin", "postgres"), initdb: path.join(target, "bin", "initdb") }
}

/**
 * The folder the cluster runs in: `dataDir` itself, the target of `dataDir` when it is a link
 * placed by an earlier start, or (as root, when user postgres cannot reach `dataDir`) a new
 * folder under the public home, which `dataDir` then links to.
 */
export const clusterFolder = (dataDir: string, user: Ids | undefined): string => {
  const given = path.resolve(dataDir)
  const parent = path.dirname(given)
  fs.mkdirSync(parent, { recursive: true })
  const stat = fs.lstatSync(given, { throwIfNoEntry: false })
  if (stat?.isSymbolicLink()) return path.resolve(parent, fs.readlinkSync(given))
  if (!user || canUse(user, parent)) return given
  if (stat) {
    if (fs.existsSync(path.join(given, "PG_VERSION"))) {
      throw new EmbeddedPostgresError(
        `user postgres cannot reach the cluster in ${given} (a folder above it is private): ` +
          "let every user traverse those folders (chmod o+x), or move the cluster elsewhere and leave a symbolic link to it"
      )
    }
    // An empty folder left by a start that failed here: the link takes its place.
    try {
      fs.rmdirSync(given)
    } catch {
      throw new EmbeddedPostgresError(`user postgres cannot reach ${given} (a folder above it is private), and it is not an empty folder: remove it, or set DATABASE_URL`)
    }
  }
  const key = crypto.createHash("sha256").update(given).digest("hex").slice(0, 16)
  const home = path.join(publicHome(user), "clusters", key)
  mkdirPublic(home)
  fs.writeFileSync(path.join(home, "origin"), `${given}\n`)
  const target = path.join(home, "postgres")
  fs.symlinkSync(target, given)
  return target
}
