/**
 * The package's import rules, checked by `npm run lint` (dependency-cruiser). Data flows one way:
 *
 *   limits.ts, client/        leaves: import nothing of the package (client/ only itself: the
 *                             client, its pacer, retry policy, cancel switch and scrubber)
 *   schema/                   field builders and check failures: limits, client's types
 *   webhook/                  the backend kit: limits, schema, client's redaction
 *   config.ts                 settings, and the one place a client is built from them
 *   resources/                specs, the dynamic provider, registration, writes, lookups, the
 *                             secret wrapper: all of the above
 *   cli/, native/             discover, recover (with its state backends, cli/state/), the pulumi
 *                             runs; the native provider plugin: resources and below
 *   policy/                   the policy pack's rules: the resources' type names (resources,
 *                             native's tokens), never the client, the CLI or the simulator
 *   testing/                  the simulator stands for ChatBot: limits, schema, webhook, never
 *                             the provider's code (resources, config, cli)
 *   index.ts                  the public entry
 *
 * bench/, scripts/ and examples/ use the package as its users do: its public entries only.
 */
"use strict";

/** A rule forbidding imports from `from` to `to` (path patterns). */
const forbid = (name, comment, from, to) => ({
    name,
    comment,
    severity: "error",
    from: { path: from },
    to: { path: to },
});

module.exports = {
    forbidden: [
        { name: "no-circular", comment: "No import circle.", severity: "error", from: {}, to: { circular: true } },
        forbid(
            "client-is-a-leaf",
            "client/ imports nothing from the rest of the package.",
            "^provider/client/",
            "^provider/(?!client/)",
        ),
        forbid("limits-is-a-leaf", "limits.ts is plain numbers.", "^provider/limits\\.ts$", "^provider/"),
        forbid(
            "schema-below",
            "schema/ is below everything but limits and the client's types.",
            "^provider/schema/",
            "^provider/((resources|cli|native|testing|webhook)/|config\\.ts)",
        ),
        forbid(
            "webhook-below-provider",
            "The backend kit never needs the provider.",
            "^provider/webhook/",
            "^provider/((resources|cli|native|testing)/|config\\.ts)",
        ),
        forbid(
            "config-below-resources",
            "Settings know the client, nothing above.",
            "^provider/config\\.ts$",
            "^provider/(resources|cli|native|testing|webhook|schema)/",
        ),
        forbid(
            "resources-below-cli",
            "Resources never reach up to the CLI or the simulator.",
            "^provider/resources/",
            "^provider/(cli|native|testing)/",
        ),
        forbid(
            "policy-reads-types",
            "The policy pack judges what a program declares: it never calls ChatBot or the CLI.",
            "^provider/policy/",
            "^provider/(cli|client|testing|webhook)/",
        ),
        forbid(
            "simulator-is-chatbot",
            "The simulator stands for ChatBot: never the provider's code paths.",
            "^provider/testing/",
            "^provider/((resources|cli|native)/|config\\.ts)",
        ),
        forbid(
            "users-use-public-entries",
            "bench/, scripts/ and examples/ import the package by its public entries, as users do.",
            "^(bench|scripts|examples)/",
            "^provider/",
        ),
    ],
    options: {
        doNotFollow: { path: "node_modules" },
        exclude: { path: "(^|/)(dist|node_modules)/" },
        tsConfig: { fileName: "tsconfig.json" },
        tsPreCompilationDeps: true,
    },
};
