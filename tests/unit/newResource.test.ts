/**
 * A resource is its spec, its class and its tests: everything else follows from the registry.
 * Here a third resource, `Relay`, exists only in this file: its spec is registered the way a real
 * one is (listed in provider/resources/registry.ts, through its test-only `registerForTests`), and
 * no other file knows it. It shows up in the native plugin's schema (the resource and its two
 * lookup functions), is served by the plugin's Check and Diff (its handlers called in-process, as
 * gRPC calls them), is one of the package's types to the policy pack, and is counted in a stack
 * export, from either delivery.
 *
 * What reads the registry when it loads reads it once, so the package's modules are loaded afresh
 * for this file, the spec registered first; the modules every other file uses are put back after.
 */
import { strict as assert } from "assert";
import * as path from "path";
import { root } from "../helpers/support";

type Modules = {
    registry: typeof import("../../provider/resources/registry");
    spec: typeof import("../../provider/resources/spec");
    fields: typeof import("../../provider/schema/fields");
    z: typeof import("../../provider/schema/zod");
    server: typeof import("../../provider/native/server");
    policy: typeof import("../../provider/policy/resources");
    rules: typeof import("../../provider/policy/rules");
    stackExport: typeof import("../../provider/cli/stackExport");
};

const PROVIDER = path.join(root, "provider") + path.sep;

/** Loads the package's modules afresh, `register` run on the fresh registry before anything
 *  that reads it; `restore` puts back the modules every other file of this process has. */
function freshPackage(register: (m: Pick<Modules, "registry" | "spec" | "fields" | "z">) => void): {
    modules: Modules;
    restore(): void;
} {
    const saved = Object.entries(require.cache).filter(([file]) => file.startsWith(PROVIDER));
    const forget = () => {
        for (const file of Object.keys(require.cache)) if (file.startsWith(PROVIDER)) delete require.cache[file];
    };
    forget();
    const first = {
        registry: require("../../provider/resources/registry") as Modules["registry"],
        spec: require("../../provider/resources/spec") as Modules["spec"],
        fields: require("../../provider/schema/fields") as Modules["fields"],
        z: require("../../provider/schema/zod") as Modules["z"],
    };
    register(first);
    const modules: Modules = {
        ...first,
        server: require("../../provider/native/server"),
        policy: require("../../provider/policy/resources"),
        rules: require("../../provider/policy/rules"),
        stackExport: require("../../provider/cli/stackExport"),
    };
    return {
        modules,
        restore() {
            forget();
            for (const [file, mod] of saved) require.cache[file] = mod;
        },
    };
}

type RelayInputs = { name: string; url: string; channel: string; token?: string };
type RelayOutputs = RelayInputs & { seenAt: string | null };
interface ApiRelay {
    id: string;
    name: string;
    url: string;
    channel: string;
    token?: string | null;
    seenAt?: string | null;
}
type ApiRelayItem = Omit<ApiRelay, "token">;

/** The spec of `Relay`, as a spec file would declare it: a table of fields with their limits, its
 *  answers' schemas and how they become outputs. */
function relaySpec({ spec, fields, z }: Pick<Modules, "spec" | "fields" | "z">) {
    const table = {
        name: spec.field("text", fields.text(1, 64), { required: true }),
        url: spec.field("text", fields.httpUrl(512), { required: true }),
        channel: spec.field("text", fields.text(3, 3), { required: true, replaces: true }),
        token: spec.field("text", fields.text(1, 256), { secret: true }),
    };
    const read = z.object({
        id: z.string(),
        name: z.string(),
        url: z.string(),
        channel: z.string(),
        token: z.string().nullish(),
        seenAt: z.string().nullish(),
    });
    const relay: import("../../provider/resources/spec").ResourceSpec<
        RelayInputs,
        RelayOutputs,
        ApiRelay,
        ApiRelayItem,
        "Relay"
    > = {
        type: "Relay",
        noun: "relay",
        path: "/relays",
        fields: table,
        adoptId: fields.text(1, 64),
        outputTypes: { seenAt: "string or null" },
        schemas: { read, list: z.array(read.omit({ token: true })) },
        outputs: (r) => ({
            ...(spec.inputsIn({ fields: table }, r) as RelayInputs),
            seenAt: r.seenAt ?? null,
        }),
        listed: ["name", "url", "channel", "seenAt"],
        blankOutputs: () => ({ seenAt: null }),
        created: {
            describe: (d) => `relay named "${d.name}"`,
            matches: (item, d) => item.name === d.name && item.url === d.url,
        },
        envelopes: {
            create: { code: 201, type: "created" },
            update: { code: 200, type: "success" },
            delete: { code: 200, type: "success" },
        },
    };
    return relay;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the gRPC stubs are JavaScript */
const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const fromPulumi = (request: string): any => require(require.resolve(request, { paths: [sdk] }));
const proto = fromPulumi("@pulumi/pulumi/proto/provider_pb");
const { Struct } = fromPulumi("google-protobuf/google/protobuf/struct_pb");

const URN = "urn:pulumi:dev::house::chatbot:index:Relay::night-relay";

describe("a resource added by its spec alone (Relay, this file's own, registered as a real one is)", () => {
    let m: Modules;
    let restore: () => void;

    before(() => {
        ({ modules: m, restore } = freshPackage((first) => first.registry.registerForTests(relaySpec(first))));
    });
    after(() => restore());

    /** Calls one of the plugin's handlers as gRPC does: the answer, or the error it reports. */
    const call = (method: keyof Modules["server"]["service"], request: unknown): Promise<any> =>
        new Promise((resolve, reject) =>
            (m.server.service[method] as any)({ request }, (e: unknown, value: unknown) =>
                e ? reject(e) : resolve(value),
            ),
        );

    it("the plugin's schema declares it: the resource, its facts, and its two lookup functions", async () => {
        const answer = await call("getSchema", new proto.GetSchemaRequest().setVersion(0));
        const schema = JSON.parse(answer.getSchema());
        const resource = schema.resources["chatbot:index:Relay"];
        assert.ok(resource, "the schema has chatbot:index:Relay");
        assert.deepEqual(Object.keys(resource.inputProperties), ["name", "url", "channel", "token", "adoptId"]);
        assert.deepEqual(resource.requiredInputs, ["url", "channel"]);
        assert.equal(resource.inputProperties.channel.willReplaceOnChanges, true);
        assert.equal(resource.inputProperties.token.secret, true);
        assert.match(resource.inputProperties.channel.description, /exactly 3 characters/);
        assert.deepEqual(Object.keys(resource.properties), ["name", "url", "channel", "token", "seenAt"]);
        assert.ok(schema.functions["chatbot:index:getRelay"], "the schema has getRelay");
        assert.ok(schema.functions["chatbot:index:getRelays"], "the schema has getRelays");
        const item = schema.types["chatbot:index:RelayListItem"];
        assert.deepEqual(Object.keys(item.properties), ["id", "name", "url", "channel", "seenAt"]);
        // The real resources are still there, beside it.
        assert.ok(
            schema.resources["chatbot:index:WebhookConnection"] && schema.resources["chatbot:index:LegacyWebhook"],
        );
    });

    it("the plugin's Check takes it: every refusal names the property and the limit; name defaults to the resource's", async () => {
        const bad = new proto.CheckRequest()
            .setUrn(URN)
            .setOlds(Struct.fromJavaScript({}))
            .setNews(Struct.fromJavaScript({ url: "ftp://relay.example.com", channel: "toolong", token: "" }));
        const refused = await call("check", bad);
        const failures = refused.getFailuresList().map((f: any) => [f.getProperty(), f.getReason()]);
        assert.deepEqual(
            failures.map(([property]: string[]) => property),
            ["url", "channel", "token"],
        );
        assert.match(failures[0][1], /^url: must be an absolute http:\/\/ or https:\/\/ URL/);
        assert.match(failures[1][1], /^channel: must be exactly 3 characters/);
        assert.match(failures[2][1], /^token: must be 1 to 256 characters/);

        const good = new proto.CheckRequest()
            .setUrn(URN)
            .setOlds(Struct.fromJavaScript({}))
            .setNews(Struct.fromJavaScript({ url: "https://relay.example.com", channel: "ops", token: "t-1" }));
        const taken = await call("check", good);
        assert.deepEqual(taken.getFailuresList(), []);
        const inputs = taken.getInputs().toJavaScript();
        assert.equal(inputs.name, "night-relay");
        assert.equal(inputs.url, "https://relay.example.com");
        assert.ok(m.spec.isPlain(inputs.token), "the secret field comes back wrapped as a secret");
    });

    it("the plugin's Diff names each changed property, as an update or a replacement", async () => {
        const olds = { name: "night-relay", url: "https://a.example.com", channel: "ops", seenAt: null };
        const request = new proto.DiffRequest()
            .setId("r-1")
            .setUrn(URN)
            .setOlds(Struct.fromJavaScript(olds))
            .setNews(Struct.fromJavaScript({ ...olds, url: "https://b.example.com", channel: "dev" }));
        const diff = await call("diff", request);
        assert.equal(diff.getChanges(), proto.DiffResponse.DiffChanges.DIFF_SOME);
        assert.deepEqual(diff.getDiffsList(), ["url", "channel"]);
        assert.deepEqual(diff.getReplacesList(), ["channel"]);
        const detailed = diff.getDetaileddiffMap();
        assert.equal(detailed.get("url").getKind(), proto.PropertyDiff.Kind.UPDATE);
        assert.equal(detailed.get("channel").getKind(), proto.PropertyDiff.Kind.UPDATE_REPLACE);

        const same = await call(
            "diff",
            new proto.DiffRequest()
                .setId("r-1")
                .setUrn(URN)
                .setOlds(Struct.fromJavaScript(olds))
                .setNews(Struct.fromJavaScript(olds)),
        );
        assert.equal(same.getChanges(), proto.DiffResponse.DiffChanges.DIFF_NONE);
    });

    it("the policy pack takes both of its tokens for the package's, and judges it by the rules about its url and token", () => {
        assert.equal(m.policy.chatbotType({ type: "chatbot:index:Relay" }), "Relay");
        assert.equal(m.policy.chatbotType({ type: "pulumi-nodejs:dynamic/chatbot:Relay" }), "Relay");
        assert.equal(m.policy.chatbotType({ type: "other:index:Relay" }), undefined);
        assert.ok(m.policy.typesWith("url").includes("Relay" as never));
        const reports: string[] = [];
        // resourceRule gives every rule one function (provider/policy/rules.ts).
        const validate = m.rules.httpsOnly.validateResource as (args: never, report: (m: string) => void) => void;
        validate(
            {
                type: "chatbot:index:Relay",
                name: "night-relay",
                props: { url: "http://relay.example.com/hook" },
                getConfig: () => ({}),
            } as never,
            (message: string) => reports.push(message),
        );
        assert.equal(reports.length, 1);
        assert.match(reports[0], /^Relay "night-relay": url uses http, not https/);
    });

    it("a stack export's reader counts it, from either delivery, and nothing else", () => {
        const exported = {
            version: 3,
            deployment: {
                resources: [
                    { urn: "a", custom: true, id: "r-1", type: "chatbot:index:Relay" },
                    { urn: "b", custom: true, id: "r-2", type: "pulumi-nodejs:dynamic/chatbot:Relay" },
                    { urn: "c", custom: true, id: "r-3", type: "chatbot:index:Relays" },
                    { urn: "d", custom: true, id: "r-4", type: "elsewhere/chatbot:Relay" },
                ],
            },
        };
        const found = m.stackExport.managedResources(JSON.stringify(exported), "stack.json");
        assert.deepEqual(
            found.map((r) => r.id),
            ["r-1", "r-2"],
        );
        assert.equal(m.stackExport.specOfType("chatbot:index:Relay")?.noun, "relay");
    });

    it("no other file's modules know it: the registry they load lists the real resources only", () => {
        restore();
        const real = require("../../provider/resources/registry") as Modules["registry"];
        const policy = require("../../provider/policy/resources") as Modules["policy"];
        assert.deepEqual(
            real.resources.map((spec) => spec.type),
            ["WebhookConnection", "LegacyWebhook"],
        );
        assert.equal(policy.chatbotType({ type: "chatbot:index:Relay" }), undefined);
        assert.notEqual(real, m.registry);
    });
});

describe("the native plugin's DiffConfig, in-process", () => {
    const server = require("../../provider/native/server") as Modules["server"];
    const diffConfig = (olds: object, news: object): Promise<any> =>
        new Promise((resolve, reject) =>
            server.service.diffConfig(
                {
                    request: new proto.DiffRequest()
                        .setOlds(Struct.fromJavaScript(olds))
                        .setNews(Struct.fromJavaScript(news)),
                },
                (e: unknown, value: unknown) => (e ? reject(e) : resolve(value)),
            ),
        );
    const settings = {
        token: "t-1",
        apiUrl: "https://api.example.com",
        retryMaxElapsedMs: 60_000,
        refreshBeforeUpdate: false,
    };

    it("compares every setting the schema declares, naming each that changed", async () => {
        assert.deepEqual(server.SETTING_NAMES, ["token", "apiUrl", "retryMaxElapsedMs", "refreshBeforeUpdate"]);
        for (const [key, value] of Object.entries({
            token: "t-2",
            apiUrl: "https://b.example.com",
            retryMaxElapsedMs: 1,
            refreshBeforeUpdate: true,
        })) {
            const answer = await diffConfig(settings, { ...settings, [key]: value });
            assert.equal(answer.getChanges(), proto.DiffResponse.DiffChanges.DIFF_SOME, key);
            assert.deepEqual(answer.getDiffsList(), [key]);
        }
        const none = await diffConfig(settings, { ...settings });
        assert.equal(none.getChanges(), proto.DiffResponse.DiffChanges.DIFF_NONE);
        assert.deepEqual(none.getDiffsList(), []);
    });
});
