/**
 * Benchmarks of pulumi-chatbot at scale (issue #5): state size, up and refresh against an API that
 * answers in 50 ms, preview, the plugin's memory and its cold start. Every figure is measured in
 * one run, side by side with a reference where one helps to read it, through the real
 * dynamic-provider plugin driven by the engine stand-in (tests/engine), with the package as users
 * install it (node_modules/pulumi-chatbot, from `npm pack`), against the simulator in a process of
 * its own. The steps are in ./steps.ts.
 *
 *     npm run bench                 full sizes, ~2 min; writes bench/RESULTS.md
 *     npm run bench -- --quick      small sizes, ~15 s after the build (CI); writes .bench/RESULTS.quick.md
 *     npm run bench -- --parallel=default   at the engine's default parallelism (4 × CPUs) instead of 16
 *
 * Figures are printed, never judged pass/fail: the exit code is non-zero only if a step fails.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { defaultParallelism } from "../tests/engine/engine";
import { serializeProvider } from "../tests/engine/serialize";
import { installedRequire, root } from "../tests/support";
import { EMPTY_PROVIDER, WAIT_PROVIDER, writeBaselineProject, type BaselineProject } from "./baselines";
import { median, since } from "./measure";
import * as report from "./report";
import {
    LATENCY_MS,
    PARALLELISM,
    coldStarts,
    floorMs,
    killLeftovers,
    lifecycle,
    pluginEnv,
    scale,
    sizes,
    startSimulator,
    stopAll,
    type Lifecycle,
    type Pass,
} from "./steps";

const QUICK = process.argv.includes("--quick");
const SIZES = QUICK
    ? { connections: 20, scale: 100, reps: 1, coldReps: 3 }
    : { connections: 200, scale: 1000, reps: 5, coldReps: 7 };
/** No run may take longer than this; the watchdog then kills what it started and exits. */
const RUN_LIMIT_MS = QUICK ? 3 * 60_000 : 15 * 60_000;
const GOALS = { bytes: 2048, up: 1.3, refresh: 1.3, previewCalls: 0, peakRss: 200e6, cold: 1.2 };
const LIFECYCLE_PASSES = ["up", "upWarm", "refresh", "refreshWarm"] as const;
const RESULTS = QUICK ? path.join(root, ".bench", "RESULTS.quick.md") : path.join(__dirname, "RESULTS.md");

function log(msg: string): void {
    process.stderr.write(`[bench ${(since(0) / 1000).toFixed(1)} s] ${msg}\n`);
}

function spread(xs: number[], fmt: (x: number) => string): string {
    if (xs.length === 1) return fmt(xs[0]);
    return `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}, ${xs.length} runs)`;
}

function met(ok: boolean): string {
    return QUICK ? "–" : ok ? "yes" : "no";
}

function perOp(pass: Pass): string {
    const parts = Object.entries(pass.requests.byMethod).map(([m, c]) => `${m} ${+(c / pass.n).toFixed(2)}`);
    return `${+(pass.requests.requests / pass.n).toFixed(2)} (${parts.join(" + ") || "none"})`;
}

async function main(): Promise<void> {
    const started = new Date();
    const sdkVersion = (installedRequire("@pulumi/pulumi/package.json") as { version: string }).version;
    const m = report.machine(sdkVersion);
    log(`${QUICK ? "quick" : "full"} run on ${report.machineLine(m)}`);

    let project: BaselineProject | undefined;
    try {
        log("1/6 serialized provider size");
        const size = await sizes({ freshProject: !QUICK });

        await startSimulator();
        project = writeBaselineProject(root);
        const cwd = project.dir;
        const waitText = await serializeProvider(project.load(WAIT_PROVIDER));
        const emptyText = await serializeProvider(project.load(EMPTY_PROVIDER));

        log(
            `2-3/6 up and refresh of ${SIZES.connections} connections at parallelism ${PARALLELISM}, ${SIZES.reps} run(s)`,
        );
        const ours: Lifecycle[] = [];
        const refs: Lifecycle[] = [];
        // The reference waits as long per operation as ours spent on the API (in the latest run of
        // ours), and its floor is ours. After the first round, which goes first alternates.
        let waits: Record<string, string> | undefined;
        const runOurs = async (rep: number) => {
            const o = await lifecycle({ provider: size.installedText, cwd, env: pluginEnv() }, rep, SIZES.connections);
            waits = {
                BENCH_WAIT_MS_CREATE: String((o.up.requests.requests / o.up.n) * LATENCY_MS),
                BENCH_WAIT_MS_READ: String((o.refresh.requests.requests / o.refresh.n) * LATENCY_MS),
            };
            ours.push(o);
            return o;
        };
        const runReference = async (rep: number, like: Lifecycle) => {
            const r = await lifecycle({ provider: waitText, cwd, env: pluginEnv(waits) }, rep, SIZES.connections);
            for (const k of LIFECYCLE_PASSES) {
                if (r[k].requests.requests > 0) throw new Error("the reference provider reached the API");
                r[k].requests = like[k].requests;
            }
            refs.push(r);
        };
        for (let rep = 0; rep < SIZES.reps; rep++) {
            if (rep % 2 === 0) {
                const o = await runOurs(rep);
                await runReference(rep, o);
            } else {
                const last = ours[ours.length - 1];
                await runReference(rep, last);
                await runOurs(rep);
            }
        }

        log(`4-5/6 a stack of ${SIZES.scale}: up, preview, refresh, peak RSS`);
        const byValueText = "text" in size.byValue ? size.byValue.text : undefined;
        const big = await scale(cwd, size.installedText, byValueText, SIZES.scale);

        log(`6/6 cold start, ${SIZES.coldReps} runs each`);
        const cold = await coldStarts(cwd, size.installedText, emptyText, SIZES.coldReps);

        // -- the table ----------------------------------------------------------------------------
        const ratios = (runs: Lifecycle[], k: keyof Lifecycle) =>
            runs.map((l) => l[k].wallMs / floorMs(l[k].requests.requests));
        const upOurs = ratios(ours, "up");
        const refreshOurs = ratios(ours, "refresh");
        const n = SIZES.connections;
        const previewCalls = big.preview.requests.requests;
        const previewSame = big.preview.outcomes.same ?? 0;
        // Each run of ours against the empty provider's run next to it, in time: the same load.
        const coldRatios = cold.ours.map((t, i) => t / cold.empty[i]);
        const coldRatio = median(coldRatios);
        const byValueCell =
            "bytes" in size.byValue
                ? `by value (checkout's dist module): ${report.bytes(size.byValue.bytes)}; ${big.byValueLoads}`
                : `by value (checkout's dist module): fails: ${size.byValue.error}`;
        const rows: report.Row[] = [
            {
                n: "1",
                figure: "serialized provider per resource (installed from npm pack)",
                value: report.bytes(size.installed),
                reference: byValueCell,
                goal: "≤ 2 KB",
                met: met(size.installed <= GOALS.bytes),
            },
            {
                n: "2",
                figure: `up of ${n}, fresh plugin: wall ÷ floor`,
                value: spread(upOurs, report.ratio),
                reference: `waiting-only provider: ${spread(ratios(refs, "up"), report.ratio)}`,
                goal: "≤ 1.3",
                met: met(median(upOurs) <= GOALS.up),
            },
            {
                n: "",
                figure: `up of ${n} more, same plugin (warm)`,
                value: spread(ratios(ours, "upWarm"), report.ratio),
                reference: `waiting-only provider: ${spread(ratios(refs, "upWarm"), report.ratio)}`,
                goal: "",
                met: "–",
            },
            {
                n: "3",
                figure: `refresh of ${n}, fresh plugin: wall ÷ floor`,
                value: spread(refreshOurs, report.ratio),
                reference: `waiting-only provider: ${spread(ratios(refs, "refresh"), report.ratio)}`,
                goal: "≤ 1.3",
                met: met(median(refreshOurs) <= GOALS.refresh),
            },
            {
                n: "",
                figure: `refresh of ${n} again, same plugin (warm)`,
                value: spread(ratios(ours, "refreshWarm"), report.ratio),
                reference: `waiting-only provider: ${spread(ratios(refs, "refreshWarm"), report.ratio)}`,
                goal: "",
                met: "–",
            },
            {
                n: "4",
                figure: `preview of ${SIZES.scale} unchanged: API calls`,
                value: String(previewCalls),
                reference: `${previewSame} of ${SIZES.scale} steps "same"`,
                goal: "0",
                met: met(previewCalls === GOALS.previewCalls && previewSame === SIZES.scale),
            },
            {
                n: "",
                figure: `preview of ${SIZES.scale} unchanged: time per resource`,
                value: report.ms(big.preview.wallMs / SIZES.scale),
                reference: `${report.ms(big.preview.wallMs)} in all, check + diff at parallelism ${PARALLELISM}`,
                goal: "",
                met: "–",
            },
            {
                n: "5",
                figure: `plugin peak RSS (VmHWM) after up, preview, refresh of ${SIZES.scale}`,
                value: big.memory ? report.mib(big.memory.peak) : "n/a (no /proc)",
                reference: cold.emptyMemory.length
                    ? `plugin with the empty provider, after one check: ${report.mib(median(cold.emptyMemory))}`
                    : "",
                goal: "≤ 200 MB (191 MiB)",
                met: big.memory ? met(big.memory.peak <= GOALS.peakRss) : "–",
            },
            {
                n: "6",
                figure: "cold start (spawn → first Check answered) ÷ empty provider's",
                value: spread(coldRatios, report.ratio),
                reference: `${report.ms(median(cold.ours))} vs ${report.ms(median(cold.empty))} (medians of ${SIZES.coldReps})`,
                goal: "≤ 1.2",
                met: met(coldRatio <= GOALS.cold),
            },
        ];

        const setup = [
            `ChatBot API: the package's simulator (\`pulumi-chatbot/testing\`) in a child process, answering every request after ${LATENCY_MS} ms.`,
            `Pulumi: the real dynamic-provider plugin of @pulumi/pulumi, driven over gRPC by the engine stand-in (tests/engine), ${PARALLELISM} steps at once (as --parallel=${PARALLELISM}; the engine's default on this machine is ${defaultParallelism()}), the plugin started in a project folder whose node_modules resolve to the root's, with pulumi-chatbot installed from \`npm pack\` output.`,
            `Floor of a pass = requests the simulator logged × ${LATENCY_MS} ms ÷ ${PARALLELISM}: the time the API alone needs at that parallelism. The ratio wall ÷ floor is what the plugin, the stand-in and the provider add.`,
            `"Fresh plugin": a new plugin process per command, as \`pulumi up\` and \`pulumi refresh\` start one; it loads the provider (and zod, undici) inside the timed pass. "Warm": a second pass in the same process.`,
            `Reference for up and refresh: a provider that makes no request and computes nothing, it only waits as long per operation as ours spent on the API; it shows what the plugin and the stand-in cost on this machine, which no provider change can remove. The stand-in is Node (the real engine is Go), and shares the machine's cores with the plugin.`,
            `Cold start: from spawning the plugin to its answer to the first Check (after Configure), against a provider module that does nothing, both started in the same folder, alternating which goes first; the ratio is the median of each run of ours over the empty provider's run next to it.`,
            `Medians over runs where there are several (range in brackets).`,
        ];
        const share = (k: (typeof LIFECYCLE_PASSES)[number]) =>
            (median(ratios(ours, k)) - median(ratios(refs, k))).toFixed(2);
        const failed = ours.reduce((sum, l) => sum + LIFECYCLE_PASSES.reduce((x, k) => x + l[k].requests.failed, 0), 0);
        const passLine = (what: string, k: "up" | "refresh", unit: string) => {
            const walls = spread(
                ours.map((l) => l[k].wallMs),
                report.ms,
            );
            const warm = k === "up" ? "upWarm" : "refreshWarm";
            return (
                `${what} of ${n}: wall ${walls}, floor ${report.ms(floorMs(ours[0][k].requests.requests))}; ` +
                `plugin CPU per ${unit} ${cpuPerOp(ours, k)} (reference ${cpuPerOp(refs, k)}), ` +
                `warm ${cpuPerOp(ours, warm)} (reference ${cpuPerOp(refs, warm)}); ` +
                `the provider's share of the ratio (ours − reference) ${share(k)} fresh, ${share(warm)} warm`
            );
        };
        const bigRatio = (p: Pass) => report.ratio(p.wallMs / floorMs(p.requests.requests));
        const previewCpu = big.preview.pluginCpuMs;
        const details = [
            `requests per create: ${perOp(ours[0].up)}; per refresh: ${perOp(ours[0].refresh)}; ` +
                `most in flight at the simulator: ${ours[0].up.requests.maxInFlight}; failed requests: ${failed}`,
            passLine("up", "up", "create"),
            passLine("refresh", "refresh", "refresh"),
            `stack of ${SIZES.scale} in one plugin: up ${bigRatio(big.up)} × floor, refresh ${bigRatio(big.refresh)} × floor; ` +
                `preview ${report.ms(big.preview.wallMs)}, plugin CPU per previewed resource ` +
                `${previewCpu === undefined ? "n/a" : report.ms(previewCpu / SIZES.scale)}; ` +
                `RSS at the end ${big.memory ? report.mib(big.memory.current) : "n/a"}`,
            `cold start: spawn → port (the SDK's own start) ${report.ms(median(cold.oursPort))} (ours) vs ` +
                `${report.ms(median(cold.emptyPort))} (empty); port → first Check answered ` +
                `${report.ms(median(cold.ours.map((t, i) => t - cold.oursPort[i])))} vs ` +
                `${report.ms(median(cold.empty.map((t, i) => t - cold.emptyPort[i])))}; every run: ours ` +
                `${cold.ours.map((x) => Math.round(x)).join(", ")} ms, empty ${cold.empty.map((x) => Math.round(x)).join(", ")} ms`,
            `serialized: ${JSON.stringify(size.installedText.split("\n").find((l) => l.includes("require(")) ?? "")}; ` +
                `LegacyWebhook ${report.bytes(size.legacy)}; node_modules/pulumi-chatbot is the \`npm pack\` output: ` +
                `${size.packMatch}; ${size.freshProject}`,
            `load average at the end: ${report.machine(sdkVersion).load} (other work on the machine inflates every ratio)`,
        ];

        const table = report.textTable(rows);
        process.stdout.write(
            `\npulumi-chatbot benchmarks (${QUICK ? "--quick: small sizes, goals not compared" : "full run"})\n` +
                `machine: ${report.machineLine(m)}\n\n${table}\n\n${details.map((d) => `- ${d}`).join("\n")}\n`,
        );
        const markdown = report.markdownReport({
            title: QUICK ? "pulumi-chatbot benchmarks (quick run)" : "pulumi-chatbot benchmarks",
            command: QUICK ? "npm run bench -- --quick" : "npm run bench",
            when: started,
            machine: m,
            rows,
            setup,
            details,
        });
        fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
        fs.writeFileSync(RESULTS, markdown);
        process.stdout.write(`\nwritten to ${path.relative(root, RESULTS)} in ${Math.round(since(0) / 1000)} s\n`);
    } finally {
        await stopAll();
        project?.remove();
    }
}

function cpuPerOp(runs: Lifecycle[], k: keyof Lifecycle): string {
    const xs = runs.map((l) => l[k].pluginCpuMs).filter((x): x is number => x !== undefined);
    return xs.length === 0 ? "n/a" : report.ms(median(xs) / runs[0][k].n);
}

process.on("exit", killLeftovers);
const watchdog = setTimeout(() => {
    log(`the run passed its limit of ${RUN_LIMIT_MS / 60_000} min; stopping`);
    killLeftovers();
    process.exit(2);
}, RUN_LIMIT_MS);
watchdog.unref();

main().then(
    () => {
        clearTimeout(watchdog);
        process.exit(0);
    },
    (e: unknown) => {
        log(`FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        killLeftovers();
        process.exit(1);
    },
);
