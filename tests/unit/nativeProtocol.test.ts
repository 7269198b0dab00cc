/**
 * The native plugin's answers to the parts of the provider protocol the engine of v3.274.1 adds
 * over what the plugin first served: Handshake, autonaming in Check, a preview's Create and Update
 * (which the engine leaves to a plugin that handshakes), and refresh before update. Called as the
 * engine calls them, in this process, against the simulator. tests/cli/nativeProvider.test.ts runs
 * them through the real CLI.
 */
import { strict as assert } from "assert";
import * as path from "path";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { installedTesting, root } from "../helpers/support";

const STORY = "5f3c0d1e2a4b6c8d9e0f1a2b";
const URN = "urn:pulumi:dev::proj::chatbot:index:WebhookConnection::orders";
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/* eslint-disable @typescript-eslint/no-explicit-any -- the gRPC stubs are JavaScript */
const sdk = path.join(root, "node_modules", "@pulumi", "pulumi");
const proto = require(path.join(sdk, "proto", "provider_pb")) as any;
const structProto = require(require.resolve("google-protobuf/google/protobuf/struct_pb", { paths: [sdk] })) as any;
const { service } = require(path.join(root, "node_modules", "pulumi-chatbot", "dist", "native", "server.js")) as {
    service: Record<string, (call: { request: unknown }, cb: (e: any, v?: any) => void) => void>;
};

function call(method: string, request: unknown): Promise<any> {
    return new Promise((resolve, reject) =>
        service[method]({ request }, (e, v) => (e ? reject(new Error(e.message)) : resolve(v))),
    );
}

const struct = (value: Record<string, unknown>) => structProto.Struct.fromJavaScript(value);

/** Handshake as the engine sends it (NewProvider, sdk/go/common/resource/plugin/provider_plugin.go). */
const handshake = (supportsRefreshBeforeUpdate: boolean) =>
    call(
        "handshake",
        new proto.ProviderHandshakeRequest()
            .setEngineAddress("127.0.0.1:1")
            .setRootDirectory("/plugins")
            .setProgramDirectory("/plugins")
            .setConfigureWithUrn(true)
            .setSupportsRefreshBeforeUpdate(supportsRefreshBeforeUpdate),
    );

/** Configure with these stack settings (`chatbot:config:<name>` variables). */
async function configure(settings: Record<string, string>): Promise<void> {
    const request = new proto.ConfigureRequest();
    for (const [k, v] of Object.entries(settings)) request.getVariablesMap().set(`chatbot:config:${k}`, v);
    await call("configure", request);
}

/** The `name` Check gives, or its failures. */
async function checkedName(
    news: Record<string, unknown>,
    autonaming?: { proposedName?: string; mode: number },
    olds: Record<string, unknown> = {},
): Promise<{ name?: unknown; failures: string[] }> {
    const request = new proto.CheckRequest()
        .setUrn(URN)
        .setType("chatbot:index:WebhookConnection")
        .setOlds(struct(olds))
        .setNews(struct({ storyId: STORY, url: "https://orders.example.com/hook", ...news }));
    if (autonaming) {
        request.setAutonaming(
            new proto.CheckRequest.AutonamingOptions()
                .setProposedName(autonaming.proposedName ?? "")
                .setMode(autonaming.mode),
        );
    }
    const response = await call("check", request);
    return {
        name: response.getInputs()?.toJavaScript().name,
        failures: response.getFailuresList().map((f: any) => `${f.getProperty()}: ${f.getReason()}`),
    };
}

const Mode = { PROPOSE: 0, ENFORCE: 1, DISABLE: 2 };

describe("the native plugin's protocol: Handshake, autonaming, preview, refresh before update", function () {
    this.timeout(30_000);
    let sim: ChatbotSimulator;

    before(async () => {
        sim = await installedTesting().ChatbotSimulator.start({ stories: { [STORY]: "Shop" } });
        await configure({ token: sim.token, apiUrl: sim.url });
    });
    after(async () => {
        // The plugin's settings and what the engine said are this process's: the files that run
        // after this one in the same worker start from none.
        await handshake(false);
        await call("configure", new proto.ConfigureRequest());
        await sim?.close();
    });

    it("Handshake: secrets accepted, autonaming taken, no resource references, output values or byte strings", async () => {
        const answer = await handshake(true);
        assert.deepEqual(
            {
                acceptSecrets: answer.getAcceptSecrets(),
                acceptResources: answer.getAcceptResources(),
                acceptOutputs: answer.getAcceptOutputs(),
                supportsAutonamingConfiguration: answer.getSupportsAutonamingConfiguration(),
                acceptsByteString: answer.getAcceptsByteString(),
            },
            {
                acceptSecrets: true,
                acceptResources: false,
                acceptOutputs: false,
                supportsAutonamingConfiguration: true,
                acceptsByteString: false,
            },
        );
        // An engine that does not handshake reads the same from Configure.
        const configured = await call("configure", new proto.ConfigureRequest());
        assert.equal(configured.getSupportsAutonamingConfiguration(), true);
        await configure({ token: sim.token, apiUrl: sim.url });
    });

    it("autonaming: without it the resource's name; the proposed name where none is given; an explicit name wins; a name in state is kept; disabled asks for one", async () => {
        assert.deepEqual(await checkedName({}), { name: "orders", failures: [] }, "no stack setting: as before");
        const proposed = { proposedName: "proj-dev-orders", mode: Mode.ENFORCE };
        assert.deepEqual(await checkedName({}, proposed), { name: "proj-dev-orders", failures: [] });
        assert.equal((await checkedName({}, { ...proposed, mode: Mode.PROPOSE })).name, "proj-dev-orders");
        assert.equal((await checkedName({ name: "Chosen" }, proposed)).name, "Chosen", "explicit wins");
        assert.equal(
            (await checkedName({}, { proposedName: "proj-dev-orders-1f2e", mode: Mode.PROPOSE }, { name: "orders" }))
                .name,
            "orders",
            "an existing one is not renamed by a new random part",
        );
        const disabled = await checkedName({}, { mode: Mode.DISABLE });
        assert.match(
            disabled.failures.join("\n"),
            /^name: name is required: the stack's pulumi:autonaming is disabled/,
        );
        assert.equal((await checkedName({ name: "Chosen" }, { mode: Mode.DISABLE })).failures.length, 0);
        // The proposed name is held to the same limit as any name.
        const long = await checkedName({}, { proposedName: "x".repeat(129), mode: Mode.ENFORCE });
        assert.match(long.failures.join("\n"), /name: name: must be 1 to 128 characters/);
    });

    it("a preview's Create and Update call no API: their outputs are the inputs, unknowns kept", async () => {
        sim.resetRequests();
        const inputs = { storyId: STORY, name: "orders", url: UNKNOWN, token: "pv-token" };
        const created = await call(
            "create",
            new proto.CreateRequest()
                .setUrn(URN)
                .setType("chatbot:index:WebhookConnection")
                .setProperties(struct(inputs))
                .setPreview(true),
        );
        assert.equal(created.getId(), "");
        assert.equal(created.getProperties().toJavaScript().url, UNKNOWN);
        const updated = await call(
            "update",
            new proto.UpdateRequest()
                .setUrn(URN)
                .setType("chatbot:index:WebhookConnection")
                .setId("0123456789abcdef01234567")
                .setOlds(struct({ ...inputs, url: "https://old.example.com/" }))
                .setNews(struct(inputs))
                .setPreview(true),
        );
        assert.equal(updated.getProperties().toJavaScript().url, UNKNOWN);
        assert.deepEqual(sim.requests, [], "nothing sent");
    });

    it("refresh before update: flagged on Create, Read and Update only with the setting on and an engine that keeps the flag", async () => {
        const inputs = { storyId: STORY, name: "flagged", url: "https://flagged.example.com/hook" };
        const create = () =>
            call(
                "create",
                new proto.CreateRequest()
                    .setUrn(URN)
                    .setType("chatbot:index:WebhookConnection")
                    .setProperties(struct(inputs)),
            );
        const read = (id: string) =>
            call("read", new proto.ReadRequest().setUrn(URN).setType("chatbot:index:WebhookConnection").setId(id));
        const update = (id: string) =>
            call(
                "update",
                new proto.UpdateRequest()
                    .setUrn(URN)
                    .setType("chatbot:index:WebhookConnection")
                    .setId(id)
                    .setOlds(struct(inputs))
                    .setNews(struct({ ...inputs, url: "https://flagged.example.com/2" })),
            );
        const flags = async () => {
            const made = await create();
            const id = made.getId();
            return [made, await read(id), await update(id)].map((r) => r.getRefreshBeforeUpdate());
        };

        await handshake(true);
        assert.deepEqual(await flags(), [false, false, false], "off by default");
        await configure({ token: sim.token, apiUrl: sim.url, refreshBeforeUpdate: "true" });
        assert.deepEqual(await flags(), [true, true, true], "stack config");
        await configure({ token: sim.token, apiUrl: sim.url });
        process.env.CHATBOT_REFRESH_BEFORE_UPDATE = "true";
        try {
            assert.deepEqual(await flags(), [true, true, true], "the environment");
            await handshake(false);
            assert.deepEqual(await flags(), [false, false, false], "an engine that does not keep it is not sent it");
            await handshake(true);
            process.env.CHATBOT_REFRESH_BEFORE_UPDATE = "yes";
            const before = sim.listConnections().length;
            await assert.rejects(create(), /CHATBOT_REFRESH_BEFORE_UPDATE must be true or false/);
            assert.equal(sim.listConnections().length, before, "refused before anything is made");
        } finally {
            delete process.env.CHATBOT_REFRESH_BEFORE_UPDATE;
        }
    });
});
