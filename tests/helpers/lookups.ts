/**
 * The lookup functions in a whole program, the same facts for every language (TypeScript's native
 * classes, Python, Go, Java, YAML): each language's test writes the program below in its own
 * words and runs `lookupsLifecycle` on a stack of it. The program:
 *
 * - looks up by name (and story) a connection made by hand, without `includeSecrets` (so nothing
 *   in it is secret), and by id a legacy webhook with `includeSecrets: true`, each in its Output
 *   form, and makes a connection `copy` (on story `copyStoryId`) whose url is the found
 *   connection's and whose token is the legacy one's;
 * - looks up "Partner Orders" through an explicit `Provider` `partner` in a second account;
 * - lists the stack's account's connections of one story whose names start with "Twin";
 * - exports `foundId`, `foundUrl`, `legacyToken`, `legacyUrl`, `partnerId` and `twinIds` (a list
 *   of two ids); and where the language has a plain form (all but YAML), `plainFormUrl`: the
 *   legacy webhook's url looked up by id in the plain form, without `includeSecrets`.
 *
 * Its stack config: `storyId`, `copyStoryId`, `lookupName`, `legacyId`, `partnerApiUrl`,
 * `partnerToken` (secret).
 *
 * The copy then goes through the resource's whole life in that language: a change by hand found by
 * the drift check and put back (an update), a new story (a replacement), and destroy; last, a
 * connection made by hand is adopted by `pulumi import` with no write.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { ChatbotSimulator, StoredConnection } from "pulumi-chatbot/testing";
import { importMadeByHand } from "./languagePrograms";
import { emptySimulator } from "./support";
import {
    CHANGES_EXIT_CODE,
    isSecret,
    ok,
    OTHER_STORY,
    plain,
    STORY,
    type ConfigValue,
    type PulumiStack,
} from "./pulumi";

const TOKEN = "lookup-token-SECRET-3";
const LEGACY_TOKEN = "lookup-legacy-SECRET-3";
const PARTNER_TOKEN = "lookup-partner-SECRET-3";

/** Which forms of the lookup functions a language's program runs: every language but YAML has a
 *  plain form besides the Output form (`plainFormUrl`). */
export interface LookupForms {
    plain: boolean;
}

/** What the accounts hold before the program runs, made by hand. */
export interface LookupAccounts {
    orders: string;
    twins: string[];
    legacy: string;
    partner: string;
}

/** Empties both simulators and makes the connections the program looks up. */
export function makeByHand(sim: ChatbotSimulator, partnerSim: ChatbotSimulator): LookupAccounts {
    emptySimulator(sim);
    emptySimulator(partnerSim);
    return addLookupTargets(sim, partnerSim);
}

/** makeByHand beside what the accounts already hold (a lifecycle of the same stack before the
 *  lookups: none of its connections is named "Orders", "Twin" or "Partner Orders"). */
export function addLookupTargets(sim: ChatbotSimulator, partnerSim: ChatbotSimulator): LookupAccounts {
    const shop = { id: STORY, name: "Shop" };
    const orders = sim.addConnection({
        story: shop,
        name: "Orders",
        url: "https://orders.example.com/by-hand",
        token: TOKEN,
        headers: { "X-Key": "lookup-header-SECRET-3" },
        auth: { username: "bot", password: "lookup-pass-SECRET-3" },
    }).id;
    // Same name, other story: a search narrowed by story finds one.
    sim.addConnection({ story: { id: OTHER_STORY, name: "Support" }, name: "Orders", url: "https://o.example.com/" });
    const twins = ["https://t1.example.com/", "https://t2.example.com/"].map(
        (url) => sim.addConnection({ story: shop, name: "Twin", url }).id,
    );
    const legacy = sim.addLegacyWebhook({ name: "Old", url: "https://old.example.org/hook", token: LEGACY_TOKEN }).id;
    const partner = partnerSim.addConnection({
        story: { id: OTHER_STORY, name: "Partner" },
        name: "Partner Orders",
        url: "https://partner.example.com/hook",
        token: PARTNER_TOKEN,
    }).id;
    return { orders, twins, legacy, partner };
}

/** The program's stack config: the stack's account is `sim`, the explicit provider's `partnerSim`. */
export function lookupConfig(
    sim: ChatbotSimulator,
    partnerSim: ChatbotSimulator,
    made: LookupAccounts,
): Record<string, ConfigValue> {
    return {
        "chatbot:apiUrl": sim.url,
        "chatbot:token": { secret: sim.token },
        storyId: STORY,
        copyStoryId: STORY,
        lookupName: "Orders",
        legacyId: made.legacy,
        partnerApiUrl: partnerSim.url,
        partnerToken: { secret: partnerSim.token },
    };
}

const writes = (s: ChatbotSimulator) =>
    s.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

/**
 * The lifecycle: a name that matches nothing, then one that matches two, each fails at preview
 * saying what was looked for (and the two ids) with no write; then `up` finds, lists, reads the
 * second account and makes `copy` of what it found, with the token sealed in state; then the
 * copy's update (a change by hand put back), replacement and delete.
 */
export async function lookupsLifecycle(
    s: PulumiStack,
    sim: ChatbotSimulator,
    partnerSim: ChatbotSimulator,
    made: LookupAccounts,
    forms: LookupForms,
): Promise<void> {
    const moved = await lookupsThroughReplacement(s, sim, partnerSim, made, forms);

    sim.resetRequests();
    ok(await s.run("destroy"));
    assert.deepEqual(writes(sim), [`DELETE /v2/integrations/webhook/${moved?.id}`], "destroy deletes the copy only");
    assert.deepEqual(writes(partnerSim), [], "and nothing in the second account");

    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-import-"));
    try {
        const { made: imported } = await importMadeByHand(
            s,
            sim,
            partnerSim,
            { token: "import-token-SECRET-3", password: "import-pass-SECRET-3" },
            path.join(scratch, "imported"),
        );
        const [adopted] = await s.resources("chatbot:index:WebhookConnection");
        assert.equal(adopted?.id, imported.id, "`pulumi import` adopted it");
        assert.ok(isSecret(adopted?.outputs?.token), "its token sealed");
    } finally {
        fs.rmSync(scratch, { recursive: true, force: true });
    }
}

/**
 * lookupsLifecycle up to the copy's replacement, for a stack that holds more than the lookups (a
 * language's whole lifecycle in one program, its other resources unchanged by these steps: each
 * step's writes are the copy's alone). The stack's config is the program's but `lookupName`,
 * which this sets. Returns the copy as it ends, on OTHER_STORY.
 */
export async function lookupsThroughReplacement(
    s: PulumiStack,
    sim: ChatbotSimulator,
    partnerSim: ChatbotSimulator,
    made: LookupAccounts,
    forms: LookupForms,
): Promise<StoredConnection | undefined> {
    sim.resetRequests();
    partnerSim.resetRequests();
    await s.setConfig({ lookupName: "Nope" });
    const none = await s.run("preview");
    assert.notEqual(none.code, 0, "a name that matches nothing fails the preview");
    assert.match(none.stdout + none.stderr, new RegExp(`no webhook connection is named "Nope" on story ${STORY}`));

    await s.setConfig({ lookupName: "Twin" });
    const twins = await s.run("preview");
    assert.notEqual(twins.code, 0, "a name that matches two fails the preview");
    const said = twins.stdout + twins.stderr;
    assert.match(said, /2 webhook connections are named "Twin"/);
    for (const id of made.twins) assert.ok(said.includes(id), `the message names ${id}`);
    assert.deepEqual([...writes(sim), ...writes(partnerSim)], [], "a failed lookup writes nothing");

    await s.setConfig({ lookupName: "Orders" });
    const up = ok(await s.run("up"));
    const copy = sim.listConnections().find((c) => c.name === "copy");
    assert.ok(copy, "the program's own connection was made");
    assert.deepEqual(writes(sim), ["POST /v2/integrations/webhook"], "the lookups only read: one write, the copy's");
    assert.deepEqual(writes(partnerSim), [], "the second account is only read");
    assert.equal(copy.url, "https://orders.example.com/by-hand", "the found connection's url is the copy's input");
    assert.equal(copy.token, LEGACY_TOKEN, "and the legacy webhook's token, found by id");

    const stackOutputs = (await s.export(true)).deployment.resources?.find((r) => r.type === "pulumi:pulumi:Stack")
        ?.outputs as Record<string, unknown>;
    const value = (key: string) => plain(stackOutputs[key]);
    assert.equal(value("foundId"), made.orders);
    assert.equal(value("legacyUrl"), "https://old.example.org/hook");
    assert.equal(value("partnerId"), made.partner, "found through the explicit provider, in the second account");
    assert.deepEqual(value("twinIds"), made.twins, "the list, narrowed by story and name prefix");

    // Without includeSecrets a lookup holds no secret: what it found reads as it is.
    const shown = await s.outputs(false);
    assert.equal(shown.foundId, made.orders, "`pulumi stack output` prints the looked-up id, no --show-secrets");
    assert.equal(shown.foundUrl, "https://orders.example.com/by-hand", "and the looked-up url");
    if (forms.plain) {
        assert.equal(shown.plainFormUrl, "https://old.example.org/hook", "the plain form works, its result plain");
    }
    // With includeSecrets the token is there, and sealed as the resource seals it.
    assert.equal(shown.legacyToken, "[secret]");
    assert.ok(isSecret(stackOutputs.legacyToken), "the token looked up with includeSecrets is sealed in state");
    assert.equal(plain(stackOutputs.legacyToken), LEGACY_TOKEN);

    const exported = await s.export();
    const text = JSON.stringify(exported);
    for (const secret of [TOKEN, LEGACY_TOKEN, PARTNER_TOKEN, sim.token, partnerSim.token]) {
        assert.ok(!text.includes(secret), "`pulumi stack export` shows no secret in plain text");
        assert.ok(!`${up.stdout}${up.stderr}`.includes(secret), "nor does the CLI's output");
    }
    const copyState = (exported.deployment.resources ?? []).find((r) => r.urn.endsWith("::copy"));
    assert.equal(copyState?.inputs?.url, copy.url, "the copy's url, a lookup's, is a plain input in state");
    assert.ok(isSecret(copyState?.outputs?.token), "the copy's token, a lookup's secret, is sealed");

    // The copy's life: a change by hand found and put back, a new story, destroy.
    sim.editConnection(copy.id, { url: "https://changed.example.com/by-hand" });
    sim.resetRequests();
    const drift = await s.run("preview", { refresh: true, expectNoChanges: true, args: ["--diff"] });
    assert.equal(drift.code, CHANGES_EXIT_CODE, "the drift check finds the change made by hand");
    assert.match(
        drift.stdout,
        /url\s*: "https:\/\/changed\.example\.com\/by-hand" => "https:\/\/orders\.example\.com\/by-hand"/,
        "its diff shows the looked-up url for a reviewer to read",
    );
    ok(await s.run("up", { refresh: true }));
    assert.deepEqual(writes(sim), [`PUT /v2/integrations/webhook/${copy.id}`], "put back by an update");
    assert.equal(sim.getConnection(copy.id)?.url, "https://orders.example.com/by-hand");

    await s.setConfig({ copyStoryId: OTHER_STORY });
    sim.resetRequests();
    const replaced = ok(await s.run("up"));
    assert.equal(replaced.changes.replace, 1, "a new story replaces the copy");
    assert.deepEqual(writes(sim), ["POST /v2/integrations/webhook", `DELETE /v2/integrations/webhook/${copy.id}`]);
    const moved = sim.listConnections().find((c) => c.name === "copy");
    assert.equal(moved?.story.id, OTHER_STORY);
    return moved;
}

/** After a walk's destroy: what was made by hand and only looked up (addLookupTargets) is all the
 *  accounts hold; everything the program made is gone. */
export function assertOnlyLookupTargetsLeft(
    sim: ChatbotSimulator,
    partnerSim: ChatbotSimulator,
    targets: LookupAccounts,
): void {
    assert.deepEqual(
        sim
            .listConnections()
            .map((c) => c.name)
            .sort(),
        ["Orders", "Orders", "Twin", "Twin"],
        "what was made by hand and only looked up stays",
    );
    assert.deepEqual(
        partnerSim.listConnections().map((c) => c.id),
        [targets.partner],
        "the second account keeps only the connection looked up there",
    );
    assert.deepEqual(
        sim.listLegacyWebhooks().map((w) => w.id),
        [targets.legacy],
        "the legacy webhook looked up by id stays",
    );
}
