// The CPU a test run and each of its files cost, every process they start included: the pulumi
// CLI, its plugins and programs, Go and Maven builds, and processes that outlive their parent (a
// killed run's plugins, reparented to init, which /proc/self/stat's cutime never sees: that
// undercount made an earlier reporter print 15 CPU-minutes for a 45-minute run on two busy cores).
//
// On Linux with a writable cgroup-v1 cpuacct hierarchy (root in CI's and the developers'
// containers) the run gets a cgroup, each file one inside it; a process and whatever it starts stay
// in the cgroup they were started in, and the kernel adds up their CPU (cpuacct.usage, in ns).
// Elsewhere the figures fall back to this process's own CPU and its waited-for children's, and say
// so.
"use strict";
const fs = require("fs");
const path = require("path");

const HIERARCHY = "/sys/fs/cgroup/cpuacct";

/** The cpuacct cgroup this process is in, as a folder, or undefined. */
function ownCgroup() {
    try {
        const line = fs
            .readFileSync("/proc/self/cgroup", "utf8")
            .split("\n")
            .find((l) => l.split(":")[1]?.split(",").includes("cpuacct"));
        if (!line) return undefined;
        const dir = path.join(HIERARCHY, line.split(":")[2]);
        return fs.existsSync(path.join(dir, "cpuacct.usage")) ? dir : undefined;
    } catch {
        return undefined;
    }
}

/** Makes the cgroup `name` inside `parent` (default: this process's) and moves this process into
 *  it; returns its folder, or undefined where cgroups cannot be written. */
function enter(name, parent = ownCgroup()) {
    if (!parent) return undefined;
    const dir = path.join(parent, name);
    try {
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, "cgroup.procs"), String(process.pid));
        return dir;
    } catch {
        return undefined;
    }
}

/** Moves the process `pid` (and what it starts afterwards) into the cgroup `dir`. */
function move(pid, dir) {
    try {
        fs.writeFileSync(path.join(dir, "cgroup.procs"), String(pid));
    } catch {
        // it ended already, or the cgroup is gone: its CPU stays where it was
    }
}

/** CPU seconds used so far by every process that was in the cgroup `dir`. */
function usage(dir) {
    return Number(fs.readFileSync(path.join(dir, "cpuacct.usage"), "utf8")) / 1e9;
}

/** Moves this process to `parent` and removes `dir` and the cgroups inside it that no process is
 *  left in (one a leftover process still holds stays; the kernel keeps its count). */
function leave(dir, parent) {
    try {
        fs.writeFileSync(path.join(parent, "cgroup.procs"), String(process.pid));
    } catch {
        return;
    }
    const remove = (d) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
            if (e.isDirectory()) remove(path.join(d, e.name));
        }
        try {
            fs.rmdirSync(d);
        } catch {
            // still holds a process
        }
    };
    remove(dir);
}

/** Seconds of CPU of this process and its children that ended and were waited for (proc(5)'s
 *  utime, stime, cutime, cstime); elsewhere this process's own. The fallback measure. */
function ownCpu() {
    try {
        const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
        return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) / 100;
    } catch {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1e6;
    }
}

module.exports = { ownCgroup, enter, move, usage, leave, ownCpu };
