/** The benchmark's table, as text for the terminal and as markdown for bench/RESULTS.md. */
import * as os from "node:os";
import { median } from "./measure";

export interface Row {
    /** The figure number, blank for a supporting row. */
    n: string;
    figure: string;
    /** The figure for pulumi-chatbot. */
    value: string;
    /** The same measured for a reference, where one helps read the figure. */
    reference: string;
    goal: string;
    /** "yes", "no", or "–" (no goal, or sizes other than the goal's). */
    met: string;
}

export interface Machine {
    cpu: string;
    cores: number;
    memory: string;
    node: string;
    sdk: string;
    os: string;
    load: string;
    /** ../shared/tools/calibrate.js's line (scripts/yardstick.js), measured at the start. */
    yardstick: string;
}

export function machine(sdkVersion: string): Machine {
    const cpus = os.cpus();
    return {
        cpu: cpus[0]?.model.trim() ?? "unknown",
        cores: cpus.length,
        memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
        node: process.version,
        sdk: `@pulumi/pulumi ${sdkVersion}`,
        os: `${os.type()} ${os.release()}`,
        load: os
            .loadavg()
            .map((l) => l.toFixed(2))
            .join(" "),
        yardstick: (require("../scripts/yardstick.js") as { yardstick(): string }).yardstick(),
    };
}

export function machineLine(m: Machine): string {
    return `${m.cpu}, ${m.cores} cores, ${m.memory}; Node ${m.node}; ${m.sdk}; ${m.os}; load average at start ${m.load}; ${m.yardstick}`;
}

const HEAD: Row = {
    n: "#",
    figure: "figure",
    value: "pulumi-chatbot",
    reference: "reference",
    goal: "goal",
    met: "met",
};
const COLUMNS = ["n", "figure", "value", "reference", "goal", "met"] as const;

/** Fixed-width text table for the terminal. */
export function textTable(rows: Row[]): string {
    const all = [HEAD, ...rows];
    const width = COLUMNS.map((c) => Math.max(...all.map((r) => r[c].length)));
    const line = (r: Row) =>
        COLUMNS.map((c, i) => r[c].padEnd(width[i]))
            .join("  ")
            .trimEnd();
    const rule = width.map((w) => "-".repeat(w)).join("  ");
    return [line(HEAD), rule, ...rows.map(line)].join("\n");
}

export function markdownTable(rows: Row[]): string {
    const cell = (s: string) => s.replace(/\|/g, "\\|");
    const line = (r: Row) => `| ${COLUMNS.map((c) => cell(r[c])).join(" | ")} |`;
    return [line(HEAD), `| ${COLUMNS.map(() => "---").join(" | ")} |`, ...rows.map(line)].join("\n");
}

export function markdownReport(opts: {
    title: string;
    command: string;
    when: Date;
    machine: Machine;
    rows: Row[];
    setup: string[];
    details: string[];
}): string {
    return [
        `# ${opts.title}`,
        "",
        `\`${opts.command}\`, ${opts.when.toISOString().replace(/\.\d+Z$/, "Z")}, on ${machineLine(opts.machine)}.`,
        "",
        markdownTable(opts.rows),
        "",
        "## How it is measured",
        "",
        ...opts.setup.map((s) => `- ${s}`),
        "",
        "## Details",
        "",
        ...opts.details.map((s) => `- ${s}`),
        "",
    ].join("\n");
}

export function bytes(n: number): string {
    return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(2)} KB (${n.toLocaleString("en-US")} B)`;
}

/** Both units: "MB" is read both ways. */
export function mib(n: number): string {
    return `${(n / 2 ** 20).toFixed(0)} MiB (${(n / 1e6).toFixed(0)} MB)`;
}

export function ms(n: number): string {
    return n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(n >= 10 ? 1 : 2)} ms`;
}

/** The median of runs, with their range and count in brackets. */
export function spread(xs: number[], fmt: (x: number) => string): string {
    if (xs.length === 1) return fmt(xs[0]);
    return `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}, ${xs.length} runs)`;
}

export function ratio(n: number): string {
    return n.toFixed(2);
}
