/**
 * CPU time of a build, next to its wall time. Seven people share this
 * machine's two cores, so wall time swings with their load while CPU time
 * (user + system) mostly does not: both are reported.
 *
 * A spawned build (docpilot's and Pagefind's CLIs) is read from this
 * process's "children" counters in /proc/self/stat, which grow by a child's
 * CPU time (and its own waited-for children's) once Node has reaped it.
 * Builds run one at a time, so the difference is that build's alone.
 * Where /proc is missing the figure is NaN and prints as '—'.
 */
import { readFileSync } from 'node:fs'

/** Linux's USER_HZ: /proc times are in 1/100 s on every mainstream kernel config. */
const TICKS_PER_SECOND = 100

/** User + system CPU ms of this process's reaped children so far. */
export function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // Fields after the parenthesised command name (which may hold spaces): state is field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const cutime = Number(fields[13]) // field 16
    const cstime = Number(fields[14]) // field 17
    return ((cutime + cstime) * 1000) / TICKS_PER_SECOND
  } catch {
    return NaN
  }
}

export interface Timing {
  wallMs: number
  cpuMs: number
}

/** Wall and CPU time of a build that runs in child processes. */
export async function timeChild(build: () => Promise<unknown>): Promise<Timing> {
  const cpu0 = childrenCpuMs()
  const t0 = performance.now()
  await build()
  return { wallMs: performance.now() - t0, cpuMs: childrenCpuMs() - cpu0 }
}

/** Wall and CPU time of a build that runs in this process. */
export async function timeInProcess(build: () => Promise<unknown>): Promise<Timing> {
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await build()
  const cpu = process.cpuUsage(cpu0)
  return { wallMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 }
}
