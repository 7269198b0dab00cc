/**
 * What Node.js's compile cache saves one `pulumi preview` (figure 6). Every `pulumi preview` or
 * `up` of a Node.js program starts Node.js processes (the program, through the language host, and
 * the dynamic-provider plugin) that each load @pulumi/pulumi's modules; with NODE_COMPILE_CACHE
 * set to a folder (Node.js 22.1+), Node keeps the code it compiled there for the next process.
 *
 * The quickstart (examples/quickstart, the program `npm start` runs) is deployed once, then
 * previewed unchanged `runs` times without the cache (NODE_COMPILE_CACHE unset and
 * NODE_DISABLE_COMPILE_CACHE=1, so nothing can turn one on) and `runs` times with it set to one
 * folder of the bench's scratch folder, warmed first by one preview that is not counted,
 * alternating. Figures: the CPU of the CLI and of every process it started, and the wall time.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { median } from "./measure";
import * as report from "./report";
import { disposeStack, expectChanges, quickstartStack, timed, type Pass } from "./steps";

/** The first Node.js that reads NODE_COMPILE_CACHE. */
const FIRST_WITH_CACHE = [22, 1];

/** No compile cache: none named, and none a module could turn on (`module.enableCompileCache()`). */
const WITHOUT: Record<string, string | undefined> = { NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: "1" };
const warm = (folder: string): Record<string, string | undefined> => ({
    NODE_COMPILE_CACHE: folder,
    NODE_DISABLE_COMPILE_CACHE: undefined,
});

export interface CompileCacheFigures {
    rows: report.Row[];
    /** How it is measured, for bench/RESULTS.md. */
    setup: string[];
    details: string[];
}

/** Previews of the quickstart without and with a warm compile cache; `dir` is the bench's scratch folder. */
export async function measureCompileCache(
    dir: string,
    runs: number,
    log: (msg: string) => void,
): Promise<CompileCacheFigures> {
    const figure = "pulumi preview of the quickstart (2 connections, unchanged) with a warm NODE_COMPILE_CACHE";
    // The `node` on PATH is the one the CLI's language host and the plugin's script run.
    const node = execFileSync("node", ["--version"], { encoding: "utf8", timeout: 30_000 }).trim();
    const [major, minor] = node.replace(/^v/, "").split(".").map(Number);
    const setup = [
        `Compile cache (6): \`pulumi preview\` of the quickstart (examples/quickstart, configured as \`npm start\` configures it, the simulator as the API), deployed once first, with nothing changed; ${runs} runs without a compile cache (NODE_COMPILE_CACHE unset, NODE_DISABLE_COMPILE_CACHE=1) and ${runs} with NODE_COMPILE_CACHE set to one folder of the bench's scratch folder, warmed by one preview that is not counted, alternating (the order reversed every round); medians, range in brackets. CPU: user + system time of the CLI and of every process it started (language host, the program's Node.js, the plugins), as the kernel counts it for ended children (cutime + cstime of the bench's own /proc/self/stat, before and after the command; the bench runs one command at a time).`,
    ];
    if (major < FIRST_WITH_CACHE[0] || (major === FIRST_WITH_CACHE[0] && minor < FIRST_WITH_CACHE[1])) {
        const value = `not measured: the \`node\` on PATH is ${node}; NODE_COMPILE_CACHE needs ${FIRST_WITH_CACHE.join(".")}+`;
        return { rows: [{ n: "6", figure, value, reference: "", goal: "", met: "–" }], setup, details: [] };
    }

    const cache = path.join(dir, "node-compile-cache");
    fs.rmSync(cache, { recursive: true, force: true });
    const stack = await quickstartStack(dir, "quickstart", WITHOUT);
    const without: Pass[] = [];
    const withCache: Pass[] = [];
    try {
        log(`the quickstart: up, then ${runs} preview(s) without and ${runs} with a warm compile cache, alternating`);
        expectChanges(await timed(stack, "up", 2, undefined), "create");
        const preview = async (env: Record<string, string | undefined>) => {
            const p = await timed(stack, "preview", 2, undefined, env);
            expectChanges(p, "same");
            return p;
        };
        await preview(warm(cache)); // fills the cache; not counted
        for (let rep = 0; rep < runs; rep++) {
            // After the first round the order reverses, so a drift in the machine's load favours neither.
            for (const cached of rep % 2 === 0 ? [false, true] : [true, false]) {
                if (cached) withCache.push(await preview(warm(cache)));
                else without.push(await preview(WITHOUT));
            }
        }
    } finally {
        disposeStack(stack);
    }

    const defined = (xs: Array<number | undefined>) => xs.filter((x): x is number => x !== undefined);
    const row = (n: string, what: string, of: (p: Pass) => number | undefined): report.Row => {
        const [a, b] = [defined(withCache.map(of)), defined(without.map(of))];
        if (a.length === 0 || b.length === 0)
            return { n, figure: `${figure}: ${what}`, value: "n/a (no /proc)", reference: "", goal: "", met: "–" };
        const saved = median(b) - median(a);
        return {
            n,
            figure: `${figure}: ${what}`,
            value: `${report.spread(a, report.ms)}; ${report.ratio(median(a) / median(b))} × no cache (${saved >= 0 ? "−" : "+"}${report.ms(Math.abs(saved))})`,
            reference: `no cache: ${report.spread(b, report.ms)}`,
            goal: "",
            met: "–",
        };
    };
    const pluginCpu = (ps: Pass[]) => {
        const xs = defined(ps.map((p) => p.pluginCpuMs));
        return xs.length ? report.ms(median(xs)) : "n/a";
    };
    const files = fs.existsSync(cache) ? fs.readdirSync(cache, { recursive: true, withFileTypes: true }) : [];
    const entries = files.filter((f) => f.isFile());
    const bytes = entries.reduce((sum, f) => sum + fs.statSync(path.join(f.parentPath, f.name)).size, 0);
    const requests = Math.max(...[...without, ...withCache].map((p) => p.requests.requests));
    return {
        rows: [row("6", "CPU of the CLI and all it started", (p) => p.cpuMs), row("", "wall time", (p) => p.wallMs)],
        setup,
        details: [
            `compile cache: Node.js ${node} (the \`node\` on PATH) ran the program and the plugin; the cache folder held ${entries.length} files (${report.mib(bytes)}) after the runs; ` +
                `the dynamic-provider plugin's own CPU (sampled): ${pluginCpu(withCache)} with the cache, ${pluginCpu(without)} without; API requests per preview: at most ${requests}`,
        ],
    };
}
