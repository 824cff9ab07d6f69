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

/** The pids whose parent is `parentPid` (live ones). */
export const childPidsOf = (parentPid: number): Array<number> =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry) && statOf(Number(entry))?.ppid === parentPid).map(Number)

/**
 * A process and its children, including children that have exited since (their time moves
 * into the parent's reaped-children counters): the postmaster with its backends, or a
 * `studio serve --processes N` primary with its HTTP processes.
 */
export const processTreeCpuMs = (parentPid: number): number => {
  const parent = statOf(parentPid)
  let total = parent ? parent.cpuMs + parent.reapedChildrenCpuMs : 0
  for (const pid of childPidsOf(parentPid)) total += cpuMsOf(pid)
  return total
}

/** The postmaster and all its children (backends, background workers), exited ones included. */
export const postgresCpuMs = (postmasterPid: number): number => processTreeCpuMs(postmasterPid)

/** The postmaster's pid from its data folder. */
export const postmasterPid = (dataDir: string): number | undefined => {
  try {
    return Number(fs.readFileSync(`${dataDir}/postmaster.pid`, "utf8").split("\n")[0])
  } catch {
    return undefined
  }
}
