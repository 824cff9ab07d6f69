import { execFile } from "node:child_process"

/**
 * The operator CLI (`npm run studio -- <args>`) run to its end on this Node, with these variables
 * added to the environment; a failure is an exit code, never a rejection.
 */
export const runStudioCli = (env: Record<string, string>, args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["src/cli.ts", ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
    )
  })
