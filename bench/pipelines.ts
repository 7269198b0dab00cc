/**
 * Ten pipelines on one account (issue 30): `stacks` stacks of `perStack` connections each, every
 * `pulumi up` at once and then every `pulumi destroy` at once, against the simulator limited to
 * `perSecond` requests a second for the whole account (a token bucket; 429 with Retry-After
 * beyond it), beside one stack of the same size alone under the same limit. For each delivery:
 * the wall time of the last command to end ÷ the floor the limit sets (requests served ÷ the
 * rate), and 429s per request served, beside the same stacks at once with no limit (what the
 * machine itself allows: on 2 cores, ten CLIs, programs and plugins at once are CPU-bound).
 * Every command must exit 0 on its first run and the account must hold each connection once
 * (then none): a failure fails the bench. Then figure 9 (./refreshBeforeUpdate.ts): what refresh
 * before update costs one stack under the same kind of limit.
 */
import { performance } from "node:perf_hooks";
import { since } from "./measure";
import type * as report from "./report";
import { measureRefreshBeforeUpdate, type RefreshBeforeUpdateSizes } from "./refreshBeforeUpdate";
import { benchStack, disposeStack, simulator, type SubjectName } from "./steps";
import type { PulumiStack } from "../scripts/pulumiStack";

export interface PipelineSizes {
    stacks: number;
    perStack: number;
    perSecond: number;
    refreshBeforeUpdate: RefreshBeforeUpdateSizes;
}

interface Figures {
    wallMs: number;
    floorMs: number;
    served: number;
    limited: number;
}

/** Runs `command` on every stack at once; the figures of the whole, as the last one ends. */
async function allAtOnce(stacks: PulumiStack[], command: "up" | "destroy", perSecond: number): Promise<Figures> {
    const api = simulator();
    await api.reset();
    const t0 = performance.now();
    const runs = await Promise.all(stacks.map((s) => s.run(command)));
    const wallMs = since(t0);
    runs.forEach((r, i) => {
        if (r.code !== 0) {
            throw new Error(
                `pulumi ${command} of ${stacks[i].name} exited ${r.code}:\n${r.stdout.slice(-2000)}\n${r.stderr}`,
            );
        }
    });
    const stats = await api.stats();
    const served = stats.requests - stats.limited;
    return { wallMs, floorMs: (served / perSecond) * 1000, served, limited: stats.limited };
}

/** Up then destroy of `count` stacks at once; checks the account after each. */
async function round(dir: string, subject: SubjectName, count: number, sizes: PipelineSizes, tag: string) {
    const api = simulator();
    const stacks: PulumiStack[] = [];
    try {
        for (let i = 0; i < count; i++) stacks.push(await benchStack(dir, subject, sizes.perStack, `${tag}${i}`));
        const before = (await api.stats()).held; // what earlier steps of the bench left
        const up = await allAtOnce(stacks, "up", sizes.perSecond);
        const made = (await api.stats()).held - before;
        if (made !== count * sizes.perStack) {
            throw new Error(`${count} ups at once made ${made} connections, not ${count * sizes.perStack}`);
        }
        const destroy = await allAtOnce(stacks, "destroy", sizes.perSecond);
        const left = (await api.stats()).held - before;
        if (left !== 0) throw new Error(`${count} destroys at once left ${left} connections`);
        return { up, destroy };
    } finally {
        for (const s of stacks) disposeStack(s);
    }
}

const describe = (f: Figures) =>
    `${(f.wallMs / 1000).toFixed(1)} s = ${(f.wallMs / f.floorMs).toFixed(2)} × floor; ${(f.limited / f.served).toFixed(3)} 429s per request served`;

/** The rows for both deliveries: the pipelines together, with one stack alone as the reference. */
export async function measurePipelines(
    dir: string,
    sizes: PipelineSizes,
    log: (msg: string) => void,
    /** "yes", "no", or "–" where goals are not judged (the quick run). */
    met: (ok: boolean) => string,
    /** Figure 9 alone (`--only=refresh-before-update`), without the ten stacks. */
    onlyRefreshBeforeUpdate = false,
): Promise<report.Row[]> {
    const api = simulator();
    const rows: report.Row[] = [];
    await api.limit({ perSecond: sizes.perSecond });
    try {
        for (const subject of onlyRefreshBeforeUpdate ? [] : (["ours", "native"] as const)) {
            const name = subject === "ours" ? "dynamic provider" : "native plugin";
            log(
                `${name}: one stack of ${sizes.perStack} alone, then ${sizes.stacks} at once, under ${sizes.perSecond}/s`,
            );
            const alone = await round(dir, subject, 1, sizes, `${subject}-alone`);
            const together = await round(dir, subject, sizes.stacks, sizes, `${subject}-p`);
            log(`${name}: ${sizes.stacks} at once with no limit`);
            await api.limit(undefined);
            const unlimited = await round(dir, subject, sizes.stacks, sizes, `${subject}-u`);
            await api.limit({ perSecond: sizes.perSecond });
            for (const command of ["up", "destroy"] as const) {
                rows.push({
                    n: rows.length === 0 ? "5" : "",
                    figure: `${sizes.stacks} × pulumi ${command} of ${sizes.perStack} at once, one account limited to ${sizes.perSecond}/s (${name}): the last to end`,
                    value: describe(together[command]),
                    reference:
                        `the same with no limit: ${(unlimited[command].wallMs / 1000).toFixed(1)} s; ` +
                        `one stack alone: ${describe(alone[command])}; floor = requests served (${together[command].served}) ÷ ${sizes.perSecond}/s`,
                    goal: "≤ 1.3 × floor",
                    met: met(together[command].wallMs <= 1.3 * together[command].floorMs),
                });
            }
        }
        rows.push(...(await measureRefreshBeforeUpdate(dir, sizes.refreshBeforeUpdate, log, met)));
    } finally {
        await api.limit(undefined);
    }
    return rows;
}
