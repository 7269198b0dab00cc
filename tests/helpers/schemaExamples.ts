/**
 * The examples of the native plugin's schema, read back from its descriptions as the registry and
 * the SDK generators read them (`{{% example %}}` blocks, one fenced block per language), and put
 * together into one program per language, so that each language's walk previews every example
 * through the real CLI. Test tooling: not published.
 */
import { strict as assert } from "assert";
import type { ChatbotSimulator } from "pulumi-chatbot/testing";
import { ok, STORY, OTHER_STORY, type ConfigValue, type PulumiStack, type RunResult } from "./pulumi";

export const EXAMPLE_LANGUAGES = ["typescript", "python", "go", "java", "yaml"] as const;
export type ExampleLanguage = (typeof EXAMPLE_LANGUAGES)[number];

export interface SchemaDescriptions {
    resources: Record<string, { description?: string }>;
    functions: Record<string, { description?: string }>;
    provider: { description?: string };
}

export interface SchemaExample {
    /** The resource or function token, or `pulumi:providers:chatbot`. */
    member: string;
    title: string;
    /** Each fenced block of the example, by its tag, in order. */
    code: Record<string, string>;
}

/** Every `{{% example %}}` of every resource, function and the provider. */
export function schemaExamples(schema: SchemaDescriptions): SchemaExample[] {
    const members: Array<[string, string | undefined]> = [
        ...Object.entries(schema.resources).map(([t, r]) => [t, r.description] as [string, string | undefined]),
        ...Object.entries(schema.functions).map(([t, f]) => [t, f.description] as [string, string | undefined]),
        ["pulumi:providers:chatbot", schema.provider.description],
    ];
    const found: SchemaExample[] = [];
    for (const [member, description] of members) {
        for (const [, body] of (description ?? "").matchAll(/\{\{% example %\}\}\n([\s\S]*?)\{\{% \/example %\}\}/g)) {
            const title = /^### (.+)$/m.exec(body)?.[1] ?? "";
            const code: Record<string, string> = {};
            for (const [, tag, text] of body.matchAll(/^```(\w+)\n([\s\S]*?)\n```$/gm)) {
                assert.ok(!(tag in code), `${member}: ${title}: two ${tag} blocks`);
                code[tag] = text;
            }
            found.push({ member, title, code });
        }
    }
    return found;
}

/** The resource names the examples declare, which a preview of them shows. */
export const EXAMPLE_RESOURCES = [
    "ordersWebhook",
    "supportWebhook",
    "legacyOrders",
    "partnerAccount",
    "partnerOrders",
] as const;

/** The stack config every example reads, against the walks' two simulators and what
 *  addLookupTargets (./lookups.ts) made there: "Orders" in STORY, and a legacy webhook. */
export function examplesConfig(
    apiUrl: { partner: string; partnerToken: string },
    targets: { orders: string; legacy: string },
): Record<string, ConfigValue> {
    return {
        storyId: STORY,
        backendUrl: "https://backend.example.com/chatbot",
        webhookToken: { secret: "examples-token-SECRET-7" },
        basicPassword: { secret: "examples-password-SECRET-7" },
        existingConnectionId: targets.orders,
        legacyWebhookId: targets.legacy,
        partnerApiUrl: apiUrl.partner,
        partnerToken: { secret: apiUrl.partnerToken },
        partnerStoryId: OTHER_STORY,
    };
}

/** Turns the examples on in a language walk's stack (`docExamples` and what they read, against
 *  `sim`, `partnerSim` and what addLookupTargets made there) and previews them: the preview must
 *  write nothing in either account and show every example's resource. Returns it, for the
 *  language's check of what the examples exported. */
export async function previewExamples(
    stack: PulumiStack,
    sim: ChatbotSimulator,
    partnerSim: ChatbotSimulator,
    targets: { orders: string; legacy: string },
): Promise<RunResult> {
    await stack.setConfig({
        docExamples: "true",
        ...examplesConfig({ partner: partnerSim.url, partnerToken: partnerSim.token }, targets),
    });
    sim.resetRequests();
    partnerSim.resetRequests();
    const previewed = ok(await stack.run("preview", { args: ["--diff"] }));
    const writes = [...sim.requests, ...partnerSim.requests].filter((r) => r.method !== "GET");
    assert.deepEqual(writes, [], "the examples' preview writes nothing");
    for (const name of EXAMPLE_RESOURCES) assert.match(previewed.stdout, new RegExp(`\\b${name}\\b`));
    return previewed;
}

/** The stack's outputs in a preview's events: the last of them (its first event has none yet). */
export function previewOutputs(run: RunResult): Record<string, unknown> {
    const stack = run.events
        .map((e) => e.resOutputsEvent?.metadata)
        .filter((m) => m?.type === "pulumi:pulumi:Stack")
        .pop();
    return stack?.new?.outputs ?? {};
}

/** What the lookup examples export, against what addLookupTargets made: they found "Orders" by
 *  name, counted it as the story's one "Orders" (the other story's left out), read the legacy
 *  webhook by id, and found no legacy webhook named "Orders...". */
export function assertLookupOutputs(exported: Record<string, unknown>): void {
    assert.equal(exported.foundUrl, "https://orders.example.com/by-hand", "getWebhookConnection found Orders");
    assert.equal(exported.shopConnectionCount, 1, "getWebhookConnections listed the story's Orders");
    assert.equal(exported.legacyUrl, "https://old.example.org/hook", "getLegacyWebhook read it");
    assert.equal(exported.legacyWebhookCount, 0, "getLegacyWebhooks listed none");
}

/** TypeScript: each example as a module of its own (`doc_example_N.ts`, as the schema shows it),
 *  and `doc_examples.ts`, whose default export, for the program to export once `docExamples` is
 *  set, is every example's outputs: its exports, or what it returns where it exports a function
 *  (a form `pulumi convert` writes). */
export function typescriptExamples(examples: SchemaExample[]): Record<string, string> {
    const files: Record<string, string> = {};
    const modules = examples.map((e, i) => {
        files[`doc_example_${i}.ts`] = `${e.code.typescript}\n`;
        return `    outputs(require("./doc_example_${i}")),\n`;
    });
    files["doc_examples.ts"] =
        'const outputs = (m: unknown) => (typeof m === "function" ? m() : m);\n' +
        `export default Promise.all([\n${modules.join("")}]);\n`;
    return files;
}

/** Python: the examples one after another in one module (each brings its imports; a name one
 *  reuses is only rebound), and the lines that run it from a program once `docExamples` is set. */
export function pythonExamples(examples: SchemaExample[], modulePath: string): { module: string; entry: string } {
    return {
        module: examples.map((e) => `# ${e.member}: ${e.title}\n${e.code.python}\n`).join("\n"),
        entry:
            `\nif pulumi.Config().get("docExamples"):\n    import runpy\n\n` +
            `    runpy.run_path(${JSON.stringify(modulePath)})\n`,
    };
}

/** Go: each example's body as a function of its own file (`docExampleN(ctx)`), its imports kept,
 *  and `docExamples(ctx)` calling them all. */
export function goExamples(examples: SchemaExample[]): Record<string, string> {
    const files: Record<string, string> = {};
    const calls: string[] = [];
    examples.forEach((e, i) => {
        const m =
            /^([\s\S]*?)func main\(\) \{\n\tpulumi\.Run\(func\(ctx \*pulumi\.Context\) error \{\n([\s\S]*)\n\t\}\)\n\}$/.exec(
                e.code.go,
            );
        assert.ok(m, `${e.member}: ${e.title}: a Go program of one pulumi.Run:\n${e.code.go}`);
        files[`doc_example_${i}.go`] = `${m[1]}func docExample${i}(ctx *pulumi.Context) error {\n${m[2]}\n}\n`;
        calls.push(`\tif err := docExample${i}(ctx); err != nil {\n\t\treturn err\n\t}\n`);
    });
    files["doc_examples.go"] =
        'package main\n\nimport "github.com/pulumi/pulumi/sdk/v3/go/pulumi"\n\n' +
        `func docExamples(ctx *pulumi.Context) error {\n${calls.join("")}\treturn nil\n}\n`;
    return files;
}

/** Java: each example as a class of the program's package (`DocExampleN`, its `stack(ctx)`), and
 *  the calls of them all, for the program's own `stack` to make. */
export function javaExamples(examples: SchemaExample[], pkg: string): { files: Record<string, string>; call: string } {
    const files: Record<string, string> = {};
    const calls: string[] = [];
    examples.forEach((e, i) => {
        assert.match(e.code.java, /^package generated_program;$/m);
        assert.match(e.code.java, /^public class App \{$/m);
        files[`DocExample${i}.java`] = e.code.java
            .replace(/^package generated_program;$/m, `package ${pkg};`)
            .replace(/^public class App \{$/m, `public class DocExample${i} {`)
            .replace("Pulumi.run(App::stack)", `Pulumi.run(DocExample${i}::stack)`);
        calls.push(`DocExample${i}.stack(ctx);`);
    });
    return { files, call: calls.join(" ") };
}

/** YAML: the examples' sections merged into one program (a config key several read is declared
 *  once; a resource, variable or output name may appear only once). */
export function yamlExamples(examples: SchemaExample[]): string {
    const sections = new Map<string, Map<string, string[]>>();
    for (const e of examples) {
        let section: Map<string, string[]> | undefined;
        let entry: string[] | undefined;
        let pending: string[] = [];
        for (const line of e.code.yaml.split("\n")) {
            const top = /^(\w+):$/.exec(line);
            if (top) {
                if (!sections.has(top[1])) sections.set(top[1], new Map());
                section = sections.get(top[1]);
                entry = undefined;
                continue;
            }
            assert.ok(section, `${e.member}: ${e.title}: YAML with a line outside a section: ${line}`);
            if (/^ {2}#/.test(line)) {
                pending.push(line);
                continue;
            }
            const key = /^ {2}([\w-]+):/.exec(line)?.[1];
            if (key) {
                const name = key;
                if (section.has(name)) {
                    assert.ok(section === sections.get("config"), `${e.member}: ${name} appears twice`);
                    entry = undefined; // a config key already declared
                    pending = [];
                    continue;
                }
                entry = [...pending, line];
                pending = [];
                section.set(name, entry);
                continue;
            }
            entry?.push(line);
        }
    }
    return [...sections]
        .map(([name, entries]) => `${name}:\n${[...entries.values()].flat().join("\n")}`)
        .join("\n")
        .concat("\n");
}
