import { defineConfig } from "vitest/config"

/** The suite's own global setup (the embedded PostgreSQL) around one test that fails. */
export default defineConfig({
  test: {
    root: new URL("../../..", import.meta.url).pathname,
    include: ["test/support/exit-code/always-fails.check.ts"],
    globalSetup: ["test/support/global-setup.ts"]
  }
})
