/**
 * Refresh before update on a rate-limited account (figure 9, issue 68), part of the pipelines
 * bench (./pipelines.ts calls it). One stack of `connections` through the native plugin, against
 * the simulator limited to `perSecond` requests a second for the whole account (the same token
 * bucket), with the provider setting `chatbot:refreshBeforeUpdate` on, beside a stack with it off
 * (the default) in the same run. After the stack's up and one `pulumi refresh` (which flags its
 * connections): a plain `pulumi preview` with nothing changed; then one url changed by hand
 * through the simulator and a plain `pulumi up`; with it off, then `pulumi up --refresh`, the way
 * a team without the setting puts the change back. Each measured command starts with the bucket
 * full. What the setting promises is asserted, and fails the bench if not: on, the plain up sends
 * exactly one PUT and the url is back; off, the preview sends no request and the plain up no PUT.
 */
import * as report from "./report";
import { benchStack, disposeStack, expectChanges, simulator, timed, type Pass } from "./steps";

export interface RefreshBeforeUpdateSizes {
    connections: number;
    perSecond: number;
}

const BY_HAND = "https://changed.example.com/by-hand";

interface Measured {
    preview: Pass;
    up: Pass;
    /** Off only: `pulumi up --refresh` after the same change. */
    upRefresh?: Pass;
}

function expect(ok: boolean, what: string, pass: Pass): void {
    if (!ok) {
        throw new Error(
            `refresh before update: ${what}; pulumi ${pass.command} was served ${served(pass)}, changes ${JSON.stringify(pass.changes)}`,
        );
    }
}

async function measure(dir: string, on: boolean, sizes: RefreshBeforeUpdateSizes): Promise<Measured> {
    const api = simulator();
    const n = sizes.connections;
    const prefix = `rbu-${on ? "on" : "off"}`;
    const changed = `${prefix}-0`;
    const fill = () => api.limit({ perSecond: sizes.perSecond });
    const stack = await benchStack(dir, "native", n, prefix);
    try {
        // Set before the first up, the setting reaches the default provider with it.
        if (on) await stack.setConfig({ "chatbot:refreshBeforeUpdate": "true" });
        expectChanges(await timed(stack, "up", n, undefined), "create");
        expectChanges(await timed(stack, "refresh", n, undefined), "same");

        await fill();
        const preview = await timed(stack, "preview", n, undefined);
        expectChanges(preview, "same");
        if (!on) expect(preview.requests.requests === 0, "off, a preview called the API", preview);

        const declared = await api.connectionUrl(changed);
        await api.connectionUrl(changed, BY_HAND);
        await fill();
        const up = await timed(stack, "up", n, undefined);
        // PUTs served: one answered 429 and sent again is still the one write.
        const PUT = (p: Pass) => p.requests.servedByMethod.PUT ?? 0;
        if (on) {
            expect(up.changes.update === 1 && PUT(up) === 1, "on, the plain up did not send exactly one PUT", up);
            expect((await api.connectionUrl(changed)) === declared, "on, the plain up did not put the url back", up);
            return { preview, up };
        }
        expectChanges(up, "same");
        const sent = up.requests.byMethod.PUT ?? 0;
        expect(sent === 0 && (await api.connectionUrl(changed)) === BY_HAND, "off, the plain up saw the change", up);
        await fill();
        const upRefresh = await timed(stack, "up", n, undefined, {}, true);
        expect(
            upRefresh.changes.update === 1 && PUT(upRefresh) === 1 && (await api.connectionUrl(changed)) === declared,
            "off, pulumi up --refresh did not put the url back with one PUT",
            upRefresh,
        );
        return { preview, up, upRefresh };
    } finally {
        disposeStack(stack);
    }
}

/** "GET 40 + PUT 1": the requests the API served (not answered 429), by method. */
function served(p: Pass): string {
    const parts = Object.entries(p.requests.servedByMethod).map(([m, c]) => `${m} ${c}`);
    return parts.join(" + ") || "none";
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const figures = (p: Pass) => `${served(p)}; ${p.requests.limited} 429s; ${seconds(p.wallMs)}`;
const over = (p: Pass, ref: Pass) => `${p.wallMs >= ref.wallMs ? "+" : "−"}${seconds(Math.abs(p.wallMs - ref.wallMs))}`;

/** Figure 9's rows: the setting on, with off (the default) as the reference of the same run. */
export async function measureRefreshBeforeUpdate(
    dir: string,
    sizes: RefreshBeforeUpdateSizes,
    log: (msg: string) => void,
    /** "yes", or "–" where goals are not judged (the quick run). */
    met: (ok: boolean) => string,
): Promise<report.Row[]> {
    const { connections: n, perSecond } = sizes;
    const limited = `one account limited to ${perSecond}/s (native plugin)`;
    log(`refresh before update off, then on: one stack of ${n} through the native plugin under ${perSecond}/s`);
    const off = await measure(dir, false, sizes);
    const on = await measure(dir, true, sizes);
    const upRefresh = off.upRefresh as Pass;
    return [
        {
            n: "9",
            figure: `pulumi preview of ${n} unchanged, ${limited}, refresh before update on: requests served; 429s; wall time`,
            value: `${figures(on.preview)} (${over(on.preview, off.preview)} over off)`,
            reference: `off (the default): ${figures(off.preview)}`,
            goal: "off: no request",
            met: met(true),
        },
        {
            n: "",
            figure: `pulumi up (no --refresh) of the same ${n} after one url changed by hand, ${limited}, on: requests served; 429s; wall time`,
            value: `${figures(on.up)} (${over(on.up, off.up)} over off); the url put back`,
            reference: `off: ${figures(off.up)}; the change not seen`,
            goal: "on: exactly 1 PUT, the url back; off: no PUT",
            met: met(true),
        },
        {
            n: "",
            figure: `refresh before update off: pulumi up --refresh after the same change, ${limited}: requests served; 429s; wall time`,
            value: `${figures(upRefresh)}; the url put back`,
            reference: `on, the plain up: ${seconds(on.up.wallMs)} (${over(on.up, upRefresh)})`,
            goal: "",
            met: "–",
        },
    ];
}
