/**
 * The policy pack's rules (CrossGuard, @pulumi/policy), one object each: its name, default level,
 * the settings `--policy-pack-config` may give it (validated by the engine against configSchema)
 * and its check. A team's own pack can take any of them as they are.
 *
 * Messages name the resource, the property and the fix, and never a value that may be secret
 * (token, auth, headers): of a url only its scheme and host are shown, since a url may carry
 * credentials in its user info or query.
 *
 * A value unknown at preview (a url made from another resource's output) is left to CrossGuard:
 * reading it throws the SDK's UnknownValueError, which the SDK reports as an advisory "can't run
 * during preview" instead of a violation. `pulumi up` runs the rule again once the value is known.
 */
import type {
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    PolicyResource,
    StackValidationPolicy,
} from "@pulumi/policy";
import { requireOptional } from "../optionalPackage";
import { chatbotType, typesWith, type ChatbotType } from "./resources";

/** The settings of a rule, as `--policy-pack-config` gives them (JSON Schema defaults applied). */
type Settings = Record<string, unknown>;

/** A rule's check, given one of the package's resources of the types it applies to. */
type Check = (resource: Checked, report: (message: string) => void) => void;

interface Checked {
    type: ChatbotType;
    /** `WebhookConnection "orders"`: how messages name the resource. */
    label: string;
    props: Record<string, unknown>;
    settings: Settings;
}

/** A resource rule that looks only at the package's resources of `types`. */
function resourceRule(
    rule: Omit<ResourceValidationPolicy, "validateResource">,
    types: ChatbotType[],
    check: Check,
): ResourceValidationPolicy {
    return {
        ...rule,
        validateResource: (args: ResourceValidationArgs, report: ReportViolation) => {
            const type = chatbotType(args);
            if (!type || !types.includes(type)) return;
            const label = `${type} "${args.name}"`;
            check({ type, label, props: args.props, settings: args.getConfig<Settings>() ?? {} }, (m) => report(m));
        },
    };
}

/** The scheme and host of a url, or undefined when it is not an absolute url. */
function urlParts(url: unknown): { scheme: string; host: string } | undefined {
    if (typeof url !== "string") return undefined;
    try {
        const parsed = new URL(url);
        return { scheme: parsed.protocol.replace(/:$/, ""), host: parsed.hostname.toLowerCase() };
    } catch {
        return undefined;
    }
}

/** Whether `host` matches `pattern`: a host name (`api.example.com`), or `*.` and a domain
 *  (`*.example.com`), which matches every host below that domain but not the domain itself. */
export function hostMatches(host: string, pattern: string): boolean {
    const wanted = pattern.toLowerCase();
    const name = host.toLowerCase();
    return wanted.startsWith("*.") ? name.endsWith(wanted.slice(1)) : name === wanted;
}

const hostList = (description: string) => ({
    type: "array" as const,
    items: { type: "string" as const, pattern: "^(\\*\\.)?[A-Za-z0-9][A-Za-z0-9.-]*$" },
    description,
});

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** `https-only`: ChatBot sends the conversation to the backend; over http anyone on the way reads it. */
export const httpsOnly: ResourceValidationPolicy = resourceRule(
    {
        name: "https-only",
        description: "A ChatBot connection's url uses https (the hosts listed in allowHttpHosts may use http).",
        enforcementLevel: "mandatory",
        configSchema: {
            properties: {
                allowHttpHosts: hostList("Hosts that may be reached over http, e.g. localhost for development."),
            },
        },
    },
    typesWith("url"),
    ({ label, props, settings }, report) => {
        const url = urlParts(props.url);
        if (!url) {
            report(`${label}: url is not an absolute url. Fix: set url to https://<host>/<path>.`);
        } else if (url.scheme !== "https" && !strings(settings.allowHttpHosts).some((p) => hostMatches(url.host, p))) {
            report(
                `${label}: url uses ${url.scheme}, not https (host ${url.host}). Fix: use an https:// url, ` +
                    `or allow this host over http with the https-only setting allowHttpHosts: ["${url.host}"].`,
            );
        }
    },
);

/** `caller-verified`: without a token or basic auth, the backend cannot tell ChatBot from anyone. */
export const callerVerified: ResourceValidationPolicy = resourceRule(
    {
        name: "caller-verified",
        description: "A connection gives its backend a way to tell ChatBot from anyone else: a token or auth.",
        enforcementLevel: "advisory",
    },
    typesWith("token"),
    ({ type, label, props }, report) => {
        // Only presence is read: the values are secrets.
        if (props.token) return;
        if (type === "LegacyWebhook") {
            report(`${label}: token is not set. Fix: set token and check it in the backend on every call.`);
        } else if (!props.auth) {
            report(
                `${label}: neither token nor auth is set. Fix: set token (or auth: username and password) ` +
                    `and check it in the backend on every call.`,
            );
        }
    },
);

/** `allowed-hosts`: backends only on the company's own hosts. Does nothing until hosts are given. */
export const allowedHosts: ResourceValidationPolicy = resourceRule(
    {
        name: "allowed-hosts",
        description: "A connection's url is on one of the configured hosts (`api.example.com`, `*.example.com`).",
        enforcementLevel: "mandatory",
        configSchema: {
            properties: { hosts: hostList("The hosts backends may live on; empty: the rule checks nothing.") },
        },
    },
    typesWith("url"),
    ({ label, props, settings }, report) => {
        const hosts = strings(settings.hosts);
        // With no hosts the url is not read: an unknown one would be reported as unchecked.
        if (hosts.length === 0) return;
        const url = urlParts(props.url);
        if (!url || hosts.some((p) => hostMatches(url.host, p))) return;
        report(
            `${label}: url's host ${url.host} is not one of the allowed hosts (${hosts.join(", ")}). ` +
                `Fix: move the backend to an allowed host, or add the host to allowed-hosts' hosts.`,
        );
    },
);

/** `legacy-webhook`: the legacy webhook API is the older interface; v2 connections replace it. */
export const legacyWebhook: ResourceValidationPolicy = resourceRule(
    {
        name: "legacy-webhook",
        description: "A LegacyWebhook is reported with the v2 resource that replaces it: WebhookConnection.",
        enforcementLevel: "advisory",
    },
    ["LegacyWebhook"],
    ({ label }, report) =>
        report(
            `${label} uses ChatBot's legacy webhook API. Fix: declare a WebhookConnection ` +
                `(chatbot:index:WebhookConnection) with the story's storyId, the same url and token, ` +
                `and remove the LegacyWebhook once the connection serves.`,
        ),
);

/** `unique-target`: two connections for one story and url make ChatBot call the backend twice. */
export const uniqueTarget: StackValidationPolicy = {
    name: "unique-target",
    description: "No two connections of a stack are for the same story and url.",
    enforcementLevel: "advisory",
    validateStack: (args, report) => {
        const targets = new Map<string, PolicyResource[]>();
        for (const resource of args.resources) {
            if (chatbotType(resource) !== "WebhookConnection") continue;
            let target: string;
            try {
                target = `${String(resource.props.storyId)} ${String(resource.props.url)}`;
            } catch (e) {
                // One connection's unknown url (at preview) leaves the others checked.
                const { UnknownValueError } = requireOptional<typeof import("@pulumi/policy")>(
                    "@pulumi/policy",
                    "the policy pack's rules",
                );
                if (e instanceof UnknownValueError) continue;
                throw e;
            }
            targets.set(target, [...(targets.get(target) ?? []), resource]);
        }
        for (const group of targets.values()) {
            // By name, so that the same one is reported whatever order the engine lists them in.
            const [first, ...others] = group.sort((a, b) => a.name.localeCompare(b.name));
            for (const other of others) {
                report(
                    `WebhookConnection "${other.name}" has the same storyId and url as "${first.name}" ` +
                        `(story ${String(first.props.storyId)}, host ${urlParts(first.props.url)?.host ?? "?"}): ` +
                        `ChatBot would call the backend twice for each message. Fix: keep one of the two connections.`,
                    other.urn,
                );
            }
        }
    },
};

/** Every rule, as the shipped pack runs them. */
export const chatbotPolicies: Array<ResourceValidationPolicy | StackValidationPolicy> = [
    httpsOnly,
    callerVerified,
    allowedHosts,
    uniqueTarget,
    legacyWebhook,
];
