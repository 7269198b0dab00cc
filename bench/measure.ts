/** Small measuring tools: medians, and a process's CPU and memory. */
import * as fs from "node:fs";

/** Milliseconds since `t0` (from `performance.now()`). */
export function since(t0: number): number {
    return performance.now() - t0;
}

export function median(xs: number[]): number {
    const s = [...xs].sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** CPU time (user + system) a process has used, in ms; undefined where /proc is not available. */
export function processCpuMs(pid: number | undefined): number | undefined {
    if (pid === undefined) return undefined;
    // utime and stime: fields 14 and 15.
    return statCpuMs(pid, 11);
}

/**
 * CPU time (user + system) of this process's children that have ended and were waited for, each
 * with its own waited-for descendants, in ms (cutime and cstime of /proc/self/stat); undefined
 * where /proc is not available. Its growth across one command, with no other child of this
 * process ending meanwhile, is the CPU of that command and of every process it started (as long
 * as each was waited for by its parent, as the pulumi CLI, its language host and `sh` do).
 */
export function endedChildrenCpuMs(): number | undefined {
    // cutime and cstime: fields 16 and 17.
    return statCpuMs("self", 13);
}

/** Two adjacent clock-tick fields of /proc/<pid>/stat, summed, in ms. */
function statCpuMs(pid: number | "self", first: number): number | undefined {
    try {
        // Fields after the command name (which may hold spaces): state is field 3, so field k is at k - 3.
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return ((Number(fields[first]) + Number(fields[first + 1])) * 1000) / CLOCK_TICKS_PER_SECOND;
    } catch {
        return undefined;
    }
}

/** USER_HZ: 100 on every Linux build Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Peak (VmHWM) and current (VmRSS) resident memory of a process, in bytes. */
export function processMemory(pid: number | undefined): { peak: number; current: number } | undefined {
    if (pid === undefined) return undefined;
    try {
        const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
        const kb = (key: string) => {
            const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status);
            if (!m) throw new Error(`no ${key}`);
            return Number(m[1]) * 1024;
        };
        return { peak: kb("VmHWM"), current: kb("VmRSS") };
    } catch {
        return undefined;
    }
}
