import { spawnSync } from "node:child_process"
import * as fs from "node:fs"

/**
 * Debian's Chromium for browser tests, installed on first use (the machines here are Debian
 * and run tests as root; the npm registry's browser downloads are not reachable).
 */
export const CHROMIUM = "/usr/bin/chromium"

export const ensureChromium = (): string => {
  if (fs.existsSync(CHROMIUM)) return CHROMIUM
  if (process.getuid?.() !== 0) {
    throw new Error(`Browser tests need ${CHROMIUM}: install it with \`sudo apt-get install -y chromium\``)
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  for (const args of [["update"], ["install", "-y", "--no-install-recommends", "chromium"]]) {
    const result = spawnSync("apt-get", args, { env, stdio: "ignore", timeout: 10 * 60 * 1000 })
    if (result.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed (${result.status ?? result.signal})`)
  }
  return CHROMIUM
}

/**
 * Flags that work as root on a closed network (PLATFORM-NOTES.md). Playwright gives every
 * launch a fresh profile of its own, so there is no --user-data-dir here.
 */
export const chromiumArgs = (extra: ReadonlyArray<string> = []) => [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  ...extra
]
