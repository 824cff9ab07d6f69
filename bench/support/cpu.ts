import * as fs from "node:fs"

/**
 * CPU time of processes from Linux `/proc` (user + system, in ms), to split a run's CPU
 * between the load generator, the server under test and PostgreSQL. Clock ticks are 10 ms
 * (USER_HZ = 100 on Linux).
 */
const TICK_MS = 10

const statOf = (pid: number): { ppid: number; cpuMs: number; reapedChildrenCpuMs: number } | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the parenthesised command name, which may itself contain spaces:
    // [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return {
      ppid: Number(fields[1]),
      cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
      reapedChildrenCpuMs: (Number(fields[13]) + Number(fields[14])) * TICK_MS
    }
  } catch {
    return undefined
  }
}

export const cpuMsOf = (pid: number): number => statOf(pid)?.cpuMs ?? 0

/**
 * The postmaster and all its children (backends, background workers), including backends
 * that have exited since (their time moves into the postmaster's reaped-children counters).
 */
export const postgresCpuMs = (postmasterPid: number): number => {
  const postmaster = statOf(postmasterPid)
  let total = postmaster ? postmaster.cpuMs + postmaster.reapedChildrenCpuMs : 0
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = statOf(Number(entry))
    if (stat?.ppid === postmasterPid) total += stat.cpuMs
  }
  return total
}

/** The postmaster's pid from its data folder. */
export const postmasterPid = (dataDir: string): number | undefined => {
  try {
    return Number(fs.readFileSync(`${dataDir}/postmaster.pid`, "utf8").split("\n")[0])
  } catch {
    return undefined
  }
}
