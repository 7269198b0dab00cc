/**
 * Benchmarks of pulumi-chatbot under the real pulumi CLI: `pulumi up` and `pulumi refresh` of a
 * program of 200 connections, and `preview` of 1000, against an API that answers in 50 ms. Each
 * figure is measured in one run, side by side with two reference providers run through the same
 * CLI, plugin and program (./baselines.ts): one that only waits the time ours spends on the API,
 * and one that sends the same requests and does nothing else. The package is as users install it
 * (node_modules/pulumi-chatbot, from `npm pack`); the simulator runs in a process of its own. The
 * steps are in ./steps.ts.
 *
 *     npm run bench                 full sizes, ~12 min on 2 cores; writes bench/RESULTS.md
 *     npm run bench -- --quick      small sizes, ~2 min after the build (CI); writes .bench/RESULTS.quick.md
 *     npm run bench -- --parallel=<n|default>   at that parallelism only, not at the CLI's default and at 16
 *     npm run bench -- --only=pipelines         only the pipelines on a limited account (./pipelines.ts), with refresh before update
 *     npm run bench -- --only=refresh-before-update   only refresh before update on a limited account (./refreshBeforeUpdate.ts)
 *     npm run bench -- --only=native-start      only the native plugin's start and a preview through it (./nativeStart.ts)
 *
 * Figures are printed, never judged pass/fail: the exit code is non-zero only if a step fails.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pulumiCli } from "../scripts/pulumiStack";
import { writeBaselineProject, type BaselineProject } from "./baselines";
import { measurePipelines } from "./pipelines";
import { median, since } from "./measure";
import { measureCompileCache } from "./compileCache";
import { measureInstallSize } from "./installSize";
import { measureNativeStart } from "./nativeStart";
import * as report from "./report";
import {
    LATENCY_MS,
    PARALLELS,
    benchStack,
    disposeStack,
    expectChanges,
    floorMs,
    installedRequire,
    killLeftovers,
    parallelLabel,
    root,
    sizes,
    startSimulator,
    stopAll,
    timed,
    type Parallel,
    type Pass,
    type SubjectName,
} from "./steps";

const QUICK = process.argv.includes("--quick");
const ONLY_PIPELINES = process.argv.includes("--only=pipelines");
const ONLY_NATIVE_START = process.argv.includes("--only=native-start");
const ONLY_REFRESH = process.argv.includes("--only=refresh-before-update");
const ONLY = ONLY_PIPELINES || ONLY_NATIVE_START || ONLY_REFRESH;
const SIZES = QUICK ? { connections: 20, scale: 100, reps: 1 } : { connections: 200, scale: 1000, reps: 3 };
/** Issue 30's pipelines: stacks deployed at once on one account limited to `perSecond`; issue 68's
 *  refresh before update: one stack of more connections than the limit's bucket holds, so its
 *  reads wait. */
const PIPELINES = QUICK
    ? { stacks: 3, perStack: 10, perSecond: 10, refreshBeforeUpdate: { connections: 10, perSecond: 5 } }
    : { stacks: 10, perStack: 100, perSecond: 20, refreshBeforeUpdate: { connections: 40, perSecond: 10 } };
/** No run may take longer than this; the watchdog then kills what it started and exits. The quick
 *  run shares CI's machine with npm test, which can make it twice as slow (12 min measured). */
const RUN_LIMIT_MS = (QUICK ? 12 : 20) * 60_000 * PARALLELS.length;
/** Issue 18's goals, each against the requests-only reference measured in the same run. */
const GOALS = { bytes: 2048, wall: 1.05, cpuOverMs: 0.3, rss: 1.15, previewCalls: 0 };
// A partial run (--only) never replaces the full run's bench/RESULTS.md.
const RESULTS =
    QUICK || ONLY
        ? path.join(
              root,
              ".bench",
              `RESULTS${QUICK ? ".quick" : ""}${ONLY_PIPELINES ? ".pipelines" : ""}${ONLY_NATIVE_START ? ".native-start" : ""}${ONLY_REFRESH ? ".refresh-before-update" : ""}.md`,
          )
        : path.join(__dirname, "RESULTS.md");
const SUBJECTS: SubjectName[] = ["ours", "native", "requests-only", "waiting-only"];

function log(msg: string): void {
    process.stderr.write(`[bench ${(since(0) / 1000).toFixed(1)} s] ${msg}\n`);
}

function met(ok: boolean | undefined): string {
    return QUICK || ok === undefined ? "–" : ok ? "yes" : "no";
}

const msOrNa = (x: number | undefined) => (x === undefined ? "n/a" : report.ms(x));
const mibOrNa = (x: number | undefined) => (x === undefined ? "n/a" : report.mib(x));
const defined = (xs: Array<number | undefined>) => xs.filter((x): x is number => x !== undefined);
const medianOf = (xs: Array<number | undefined>) => (defined(xs).length ? median(defined(xs)) : undefined);

/** Up then refresh of one stack, each a fresh plugin (as every `pulumi` command starts one). */
interface Lifecycle {
    up: Pass;
    refresh: Pass;
}

/** Everything measured at one parallelism. */
interface AtParallel {
    parallel: Parallel;
    runs: Record<SubjectName, Lifecycle[]>;
    /** The big stack: up, then a preview with nothing changed. */
    big: Partial<Record<SubjectName, { up: Pass; preview: Pass }>>;
}

async function lifecycle(
    dir: string,
    subject: SubjectName,
    prefix: string,
    parallel: Parallel,
    env: Record<string, string>,
): Promise<Lifecycle> {
    const stack = await benchStack(dir, subject, SIZES.connections, prefix);
    try {
        const up = await timed(stack, "up", SIZES.connections, parallel, env);
        expectChanges(up, "create");
        const refresh = await timed(stack, "refresh", SIZES.connections, parallel, env);
        expectChanges(refresh, "same");
        return { up, refresh };
    } finally {
        disposeStack(stack);
    }
}

async function measureAt(parallel: Parallel, dir: string): Promise<AtParallel> {
    const at = `at ${parallelLabel(parallel)}`;
    const runs: AtParallel["runs"] = { ours: [], native: [], "requests-only": [], "waiting-only": [] };
    log(`up and refresh of ${SIZES.connections} connections ${at}, ${SIZES.reps} run(s) of each subject`);
    for (let rep = 0; rep < SIZES.reps; rep++) {
        // After the first round the order reverses, so a drift in the machine's load favours none.
        // The waiting-only provider waits as long per operation as ours spent on the API in the
        // latest run of ours, so ours runs before it in every round.
        const order: SubjectName[] = rep % 2 === 0 ? SUBJECTS : ["requests-only", "native", "ours", "waiting-only"];
        for (const subject of order) {
            const latest = runs.ours[runs.ours.length - 1];
            const env: Record<string, string> =
                subject === "waiting-only" && latest
                    ? {
                          BENCH_WAIT_MS_CREATE: String((latest.up.requests.requests / latest.up.n) * LATENCY_MS),
                          BENCH_WAIT_MS_READ: String(
                              (latest.refresh.requests.requests / latest.refresh.n) * LATENCY_MS,
                          ),
                      }
                    : {};
            const r = await lifecycle(dir, subject, `r${rep}`, parallel, env);
            if (subject === "waiting-only" && r.up.requests.requests + r.refresh.requests.requests > 0)
                throw new Error("the waiting-only provider reached the API");
            runs[subject].push(r);
        }
    }
    log(`a stack of ${SIZES.scale} ${at}, ours and the requests-only reference: up, then preview`);
    const big: AtParallel["big"] = {};
    for (const subject of ["ours", "requests-only"] as const) {
        const stack = await benchStack(dir, subject, SIZES.scale, "big");
        try {
            const up = await timed(stack, "up", SIZES.scale, parallel);
            expectChanges(up, "create");
            const preview = await timed(stack, "preview", SIZES.scale, parallel);
            big[subject] = { up, preview };
        } finally {
            disposeStack(stack);
        }
    }
    return { parallel, runs, big };
}

/** The rows and detail lines of one parallelism. */
function section(a: AtParallel): { rows: report.Row[]; details: string[] } {
    const { runs } = a;
    const n = SIZES.connections;
    const at = `, ${parallelLabel(a.parallel)}`;
    const of = (s: SubjectName, k: keyof Lifecycle) => runs[s].map((l) => l[k]);
    const wall = (s: SubjectName, k: keyof Lifecycle) => median(of(s, k).map((p) => p.wallMs));
    const cpuPerOp = (s: SubjectName, k: keyof Lifecycle) => medianOf(of(s, k).map((p) => p.pluginCpuMs)) ?? NaN;
    const rss = (s: SubjectName, k: keyof Lifecycle) => medianOf(of(s, k).map((p) => p.pluginPeakRss));

    const rowsFor = (num: string, k: keyof Lifecycle, what: string, unit: string): report.Row[] => {
        const wallRatio = wall("ours", k) / wall("requests-only", k);
        const cpu = (s: SubjectName) => cpuPerOp(s, k) / n;
        const cpuOver = cpu("ours") - cpu("requests-only");
        const [ours, reqs, wait] = [rss("ours", k), rss("requests-only", k), rss("waiting-only", k)];
        const rssRatio = ours !== undefined && reqs !== undefined ? ours / reqs : undefined;
        return [
            {
                n: num,
                figure: `pulumi ${what} of ${n}${at}: wall time`,
                value: `${report.spread(
                    of("ours", k).map((p) => p.wallMs),
                    report.ms,
                )}; ${report.ratio(wallRatio)} × requests-only`,
                reference: `requests-only ${report.ms(wall("requests-only", k))}, waiting-only ${report.ms(wall("waiting-only", k))} (${report.ratio(wall("waiting-only", k) / wall("requests-only", k))} × requests-only)`,
                goal: `≤ ${GOALS.wall} × requests-only`,
                met: met(wallRatio <= GOALS.wall),
            },
            {
                n: "",
                figure: `plugin CPU per ${unit}${at}`,
                value: Number.isNaN(cpuOver)
                    ? "n/a (no /proc)"
                    : `${report.ms(cpu("ours"))}; ${cpuOver >= 0 ? "+" : "−"}${report.ms(Math.abs(cpuOver))} over requests-only`,
                reference: `requests-only ${msOrNa(cpu("requests-only"))}, waiting-only ${msOrNa(cpu("waiting-only"))}`,
                goal: `≤ +${report.ms(GOALS.cpuOverMs)}`,
                met: met(Number.isNaN(cpuOver) ? undefined : cpuOver <= GOALS.cpuOverMs),
            },
            {
                n: "",
                figure: `plugin peak RSS (VmHWM), ${what} of ${n}${at}`,
                value: `${mibOrNa(ours)}${rssRatio === undefined ? "" : `; ${report.ratio(rssRatio)} × requests-only`}`,
                reference: `requests-only ${mibOrNa(reqs)}, waiting-only ${mibOrNa(wait)}`,
                goal: `≤ ${GOALS.rss} × requests-only`,
                met: met(rssRatio === undefined ? undefined : rssRatio <= GOALS.rss),
            },
            {
                n: "",
                figure: `the native plugin instead: ${what} of ${n}${at}, wall; plugin CPU per ${unit}; peak RSS`,
                value: `${report.ms(wall("native", k))} (${report.ratio(wall("native", k) / wall("requests-only", k))} × requests-only); ${msOrNa(cpu("native"))}; ${mibOrNa(rss("native", k))}`,
                reference: `the dynamic provider: ${report.ms(wall("ours", k))}; ${msOrNa(cpu("ours"))}; ${mibOrNa(ours)}`,
                goal: "",
                met: met(undefined),
            },
        ];
    };

    const bigOurs = a.big.ours;
    const bigReqs = a.big["requests-only"];
    const rows: report.Row[] = [
        ...rowsFor("2", "up", "up", "create"),
        ...rowsFor("3", "refresh", "refresh", "refresh"),
    ];
    if (bigOurs && bigReqs) {
        const calls = bigOurs.preview.requests.requests;
        const same = (bigOurs.preview.changes.same ?? 0) - 1; // less the stack resource
        rows.push(
            {
                n: "4",
                figure: `pulumi preview of ${SIZES.scale} unchanged${at}: API requests`,
                value: String(calls),
                reference: `${same} of ${SIZES.scale} "same"; requests-only provider: ${bigReqs.preview.requests.requests} requests`,
                goal: String(GOALS.previewCalls),
                met: met(calls === GOALS.previewCalls && same === SIZES.scale),
            },
            {
                n: "",
                figure: `pulumi preview of ${SIZES.scale} unchanged${at}: wall time`,
                value: `${report.ms(bigOurs.preview.wallMs)}; ${report.ratio(bigOurs.preview.wallMs / bigReqs.preview.wallMs)} × requests-only`,
                reference: `requests-only ${report.ms(bigReqs.preview.wallMs)}`,
                goal: "",
                met: "–",
            },
            {
                n: "",
                figure: `pulumi up of ${SIZES.scale}${at}: wall time; plugin CPU per create; plugin peak RSS`,
                value: `${report.ms(bigOurs.up.wallMs)}; ${msOrNa(bigOurs.up.pluginCpuMs && bigOurs.up.pluginCpuMs / SIZES.scale)}; ${mibOrNa(bigOurs.up.pluginPeakRss)}`,
                reference: `requests-only: ${report.ms(bigReqs.up.wallMs)}; ${msOrNa(bigReqs.up.pluginCpuMs && bigReqs.up.pluginCpuMs / SIZES.scale)}; ${mibOrNa(bigReqs.up.pluginPeakRss)}`,
                goal: "",
                met: "–",
            },
        );
    }
    const first = runs.ours[0];
    const perOp = (p: Pass) => {
        const parts = Object.entries(p.requests.byMethod).map(([m, c]) => `${m} ${+(c / p.n).toFixed(2)}`);
        return `${+(p.requests.requests / p.n).toFixed(2)} (${parts.join(" + ") || "none"})`;
    };
    const failed = runs.ours.reduce((sum, l) => sum + l.up.requests.failed + l.refresh.requests.failed, 0);
    const details = [
        `requests per create: ${perOp(first.up)}; per refresh: ${perOp(first.refresh)}; most requests in flight at the API: ` +
            `${first.up.requests.maxInFlight} (up), ${first.refresh.requests.maxInFlight} (refresh); failed requests: ${failed}${at}`,
        `floor (requests × ${LATENCY_MS} ms ÷ most in flight), ours${at}: up ${report.ms(floorMs(first.up))}, refresh ${report.ms(floorMs(first.refresh))}; ` +
            `wall ÷ floor: up ${report.ratio(wall("ours", "up") / floorMs(first.up))}, refresh ${report.ratio(wall("ours", "refresh") / floorMs(first.refresh))}`,
    ];
    return { rows, details };
}

async function main(): Promise<void> {
    const started = new Date();
    const sdkVersion = (installedRequire("@pulumi/pulumi/package.json") as { version: string }).version;
    const m = report.machine(sdkVersion);
    const cli = pulumiCli();
    const cliVersion = (await import("node:child_process"))
        .execFileSync(cli, ["version"], { encoding: "utf8", env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } })
        .trim();
    log(`${QUICK ? "quick" : "full"} run on ${report.machineLine(m)}; pulumi ${cliVersion}`);
    log(`parallelism: ${PARALLELS.map(parallelLabel).join(" and ")}`);

    let project: BaselineProject | undefined;
    try {
        await startSimulator();
        project = writeBaselineProject(root);
        const withSize = !ONLY_NATIVE_START && !ONLY_REFRESH;
        if (withSize) log("the serialized provider, from a real stack's state");
        const size = withSize ? await sizes(project.dir, { freshProject: !QUICK }) : undefined;

        const installSize = ONLY ? undefined : measureInstallSize(project.dir, log, met);
        const compileCache = ONLY ? undefined : await measureCompileCache(project.dir, QUICK ? 3 : 7, log);
        const nativeStart =
            ONLY_PIPELINES || ONLY_REFRESH
                ? undefined
                : await measureNativeStart(project.dir, QUICK ? 5 : 10, log, met);
        const measured: AtParallel[] = [];
        if (!ONLY) for (const parallel of PARALLELS) measured.push(await measureAt(parallel, project.dir));

        const pipelines = ONLY_NATIVE_START
            ? []
            : await measurePipelines(project.dir, PIPELINES, log, met, ONLY_REFRESH);
        const sections = measured.map(section);
        const rows: report.Row[] = [
            ...(size
                ? [
                      {
                          n: "1",
                          figure: "serialized provider per resource, in `pulumi stack export`",
                          value: report.bytes(size.connection),
                          reference: `LegacyWebhook ${report.bytes(size.legacy)}; a secret in either: ${size.secretInProvider ? "YES" : "no"}`,
                          goal: "≤ 2 KB, no secret",
                          met: met(size.connection <= GOALS.bytes && !size.secretInProvider),
                      },
                  ]
                : []),
            ...sections.flatMap((s) => s.rows),
            ...pipelines,
            ...(compileCache?.rows ?? []),
            ...(nativeStart?.rows ?? []),
            ...(installSize?.rows ?? []),
        ];
        const setup = [
            `Pulumi: the pulumi CLI ${cliVersion} (\`npm run pulumi-path\`), run as a user runs it, hermetically (file backend, PULUMI_HOME in a temporary folder); its dynamic-provider plugin, and the program run by @pulumi/pulumi ${sdkVersion}. Every command starts a fresh plugin. "The CLI's default" parallelism is what \`pulumi up\` uses without \`--parallel\`; the most requests the API saw at once is given below.`,
            `ChatBot API: the package's simulator (\`pulumi-chatbot/testing\`) in a child process, answering every request after ${LATENCY_MS} ms.`,
            `Wall time: the whole \`pulumi\` command, CLI start and program included, as a pipeline waits for it.`,
            `Plugin CPU and peak RSS: of the dynamic-provider plugin process the CLI starts, sampled from /proc every 20 ms (CPU at its last sample, VmHWM at its peak).`,
            `References, through the same CLI, plugin and program, with the same inputs and secret marks: the requests-only provider sends the same requests as ours (POST and read-back GET per create, GET per refresh) with undici and does nothing else (no validation, envelope or write checks, retries, secret handling); the waiting-only provider sends nothing and only waits as long per operation as ours spent on the API. Goals are ratios to the requests-only reference.`,
            `Medians over ${SIZES.reps} run(s) of each subject, alternating their order (range in brackets).`,
            ...(compileCache?.setup ?? []),
            ...(nativeStart?.setup ?? []),
            ...(installSize?.setup ?? []),
        ];
        const details = [
            ...sections.flatMap((s) => s.details),
            ...(compileCache?.details ?? []),
            ...(nativeStart?.details ?? []),
            ...(size
                ? [
                      `serialized: ${JSON.stringify(size.connectionText.split("\n").find((l) => l.includes("require(")) ?? "")}; ` +
                          `node_modules/pulumi-chatbot is the \`npm pack\` output: ${size.packMatch}; ${size.freshProject}`,
                  ]
                : []),
            `load average at the end: ${report.machine(sdkVersion).load} (other work on the machine inflates every figure)`,
        ];

        const table = report.textTable(rows);
        process.stdout.write(
            `\npulumi-chatbot benchmarks under the real pulumi CLI (${QUICK ? "--quick: small sizes, goals not compared" : "full run"})\n` +
                `machine: ${report.machineLine(m)}; pulumi ${cliVersion}\n\n${table}\n\n${details.map((d) => `- ${d}`).join("\n")}\n`,
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
