/**
 * The ids a stack manages, from the output of `pulumi stack export` (with or without
 * `--show-secrets`): a version-1 to 3 deployment, `{version, deployment: {manifest, resources}}`
 * (pulumi/pulumi sdk/go/common/apitype: UntypedDeployment, DeploymentV3, ResourceV3). A file
 * backend's checkpoint, `{version, checkpoint: {latest: {resources}}}`, is read too.
 *
 * A resource of this package is one whose type is
 * - a token of a type of ../resources/registry.ts, as ../policy/resources.ts says exactly
 *   (`pulumi-nodejs:dynamic/chatbot:WebhookConnection`, the dynamic provider's;
 *   `chatbot:index:WebhookConnection`, the native plugin's);
 * - `pulumi-nodejs:dynamic:Resource` (SDKs before dynamic resources had a module and type),
 *   whose serialized provider names this package.
 * Its `id` is managed unless it is `external` (read with `.get()`, not managed).
 */
import { readSettings, type StackSettings } from "../config";
import { specOfToken } from "../policy/resources";
import { revealed } from "../resources/secretWrapper";
import { isPlain, type AnySpec, type Plain } from "../resources/spec";

export class StackExportError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "StackExportError";
    }
}

export interface ManagedResource {
    id: string;
    urn: string;
    type: string;
    /** The provider that manages it, as the state refers to one (`<urn>::<id>`), or "". */
    provider: string;
}

/** The spec of a resource type of this package (the dynamic provider's or the native plugin's), else undefined. */
export function specOfType(type: string): AnySpec | undefined {
    return specOfToken(type);
}
const UNTYPED_DYNAMIC = "pulumi-nodejs:dynamic:Resource";

/** The managed resources of this package in one export. `source` names it in errors. Never puts
 *  the file's content in a message: with --show-secrets it holds secrets in plain text. */
export function managedResources(text: string, source: string): ManagedResource[] {
    let doc: unknown;
    try {
        doc = JSON.parse(text);
    } catch {
        throw new StackExportError(
            `${source} is not valid JSON. Give the output of \`pulumi stack export\` (e.g. \`pulumi stack export --file stack.json\`).`,
        );
    }
    const resources = resourcesOf(doc, source);
    const out: ManagedResource[] = [];
    for (const [i, r] of resources.entries()) {
        if (!isPlain(r)) throw new StackExportError(`${source}: resource ${i} is not an object.`);
        const { type, id, urn } = r;
        if (typeof type !== "string" || !ours(type, r)) continue;
        if (r.external === true || typeof id !== "string" || id === "") continue;
        const provider = typeof r.provider === "string" ? r.provider : "";
        out.push({ id, urn: typeof urn === "string" ? urn : "", type, provider });
    }
    return out;
}

/** Every resource of an export (see managedResources for `source`). */
export function exportedResources(text: string, source: string): unknown[] {
    try {
        return resourcesOf(JSON.parse(text), source);
    } catch (e) {
        if (e instanceof StackExportError) throw e;
        throw new StackExportError(`${source} is not valid JSON.`);
    }
}

/**
 * The settings of the account a resource is in, as the providers resolve them: an explicit
 * provider's own inputs (`provider` is the state's reference to it, `<urn>::<id>`, found among
 * `resources`: an export read with --show-secrets), else the stack's `chatbot` config
 * (`fromConfig`); the environment comes last, in resolveSettings. One rule for `recover` and
 * `probe --stack`, so a second account's connections are read with their own token.
 */
export function providerSettings(
    provider: string,
    resources: unknown[],
    fromConfig: (key: string) => string | undefined,
): StackSettings {
    const at = provider.lastIndexOf("::");
    const found = resources.find(
        (x) => isPlain(x) && at > 0 && x.urn === provider.slice(0, at) && x.id === provider.slice(at + 2),
    ) as Plain | undefined;
    const given = revealed(isPlain(found?.inputs) ? found.inputs : {}) as Plain;
    return readSettings((name, key) => {
        const value = given[name];
        return typeof value === "string" || typeof value === "number" ? String(value) : fromConfig(key);
    });
}

function resourcesOf(doc: unknown, source: string): unknown[] {
    const not = (why: string) =>
        new StackExportError(`${source} is not the output of \`pulumi stack export\`: ${why}.`);
    if (!isPlain(doc)) throw not("it is not a JSON object");
    const version = doc.version;
    const deployment = isPlain(doc.deployment)
        ? doc.deployment
        : isPlain(doc.checkpoint) && isPlain(doc.checkpoint.latest)
          ? doc.checkpoint.latest
          : isPlain(doc.checkpoint)
            ? {} // a stack that was never deployed
            : undefined;
    if (!deployment) throw not('it has no "deployment"');
    if (version !== undefined && (typeof version !== "number" || version < 1 || version > 3)) {
        throw not(`deployment version ${JSON.stringify(version)} is not one this command reads (1 to 3)`);
    }
    // `resources` is left out of an empty stack's export.
    if (deployment.resources === undefined || deployment.resources === null) return [];
    if (!Array.isArray(deployment.resources)) throw not('its "deployment.resources" is not a list');
    return deployment.resources;
}

function ours(type: string, r: Plain): boolean {
    if (specOfToken(type)) return true;
    if (type !== UNTYPED_DYNAMIC) return false;
    return [r.outputs, r.inputs].some((props) => isPlain(props) && mentionsPackage(props.__provider));
}

/** The serialized provider: a string, or a secret of it (`plaintext` with --show-secrets; an
 *  encrypted one cannot be read, so an untyped dynamic resource with one is not counted). */
function mentionsPackage(v: unknown): boolean {
    if (typeof v === "string") return v.includes("pulumi-chatbot");
    return isPlain(v) && typeof v.plaintext === "string" && v.plaintext.includes("pulumi-chatbot");
}
