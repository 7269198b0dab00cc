#!/usr/bin/env node
/**
 * `npm run conformance`: Pulumi's language conformance suite (pulumi-test-language of the pinned
 * pkg/v3) against each language host built from tools/pulumi/cmd, the way each real host's
 * language_test.go runs it: the same tests, the SDK of this machine's registries, the generated
 * code's snapshots written rather than compared (the real ones are not in the module). Prints each
 * test per host with pass, fail or skip, and keeps the results in docs/conformance.json and .md
 * (see updateRecord).
 *
 *   npm run conformance -- [--host nodejs,python,go] [--run REGEXP] [--parallel N] [--keep]
 *                          [--nodejs-sdk VERSION]
 *   npm run conformance -- --doc      (docs/conformance.md again from docs/conformance.json; runs nothing)
 *
 * --nodejs-sdk judges the Node.js host with that @pulumi/pulumi from the npm registry instead of the
 * one this repository installs (to show which failures are the SDK's, not the host's).
 *
 * Exits 1 when a test fails that the real host passes and HOSTS[...].notHere does not explain.
 * Hermetic: PULUMI_HOME, backends and projects in a temporary folder, no update check, no plugin
 * downloads; the suite's servers listen on 127.0.0.1.
 */
"use strict";
const { execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const readline = require("node:readline");
const { pulumiPath, pinnedVersion } = require("./pulumi-path.js");

const root = path.resolve(__dirname, "..");
const toolsDir = path.join(root, "tools", "pulumi");

/** Where the real hosts' lists come from: the newest pulumi/pulumi this workplace can read (its
 *  language_test.go files at v3.274.1 itself are not reachable here). */
const REAL_SOURCE = "pulumi/pulumi at 1b5949891b (2026-08-21, after v3.259.0), the newest copy reachable here";

/** The core SDK the Java host's programs get (com.pulumi:pulumi, Maven Central), as its generators write it. */
const JAVA_SDK_VERSION = "1.36.1";

/** Tests of v3.274.1 that the copy of pulumi/pulumi read does not have yet: what the real hosts do
 *  with them is not known here. */
const NEWER_THAN_REAL = new Set([
    "l1-builtin-range",
    "l1-operator-precedence",
    "l2-call-per-value-deps",
    "l2-component-output-value-input-deps",
    "l2-explicit-extension-provider",
    "l2-extension-borrowed-type",
    "l2-failed-create-component-continue-on-error",
    "l2-failed-create-continue-on-error-read",
    "l2-failed-create-downstream-continue-on-error",
    "l2-failed-read-continue-on-error",
    "l2-invoke-default-argument",
    "l2-invoke-per-value-deps",
    "l2-invoke-provider-inheritance",
    "l2-invoke-union-dependencies",
    "l2-map-keys-invoke-call",
    "l2-recover-invoke",
    "l2-resource-exists",
    "l2-resource-read-depends-on",
    "l2-resource-read-id-rewrite",
    "l2-resource-read-unknown",
    "l2-resource-self-reference",
    "l2-secret-unknown",
    "policy-unknowns",
]);

/** The policy packs and component providers that the policy-* and provider-* tests name, written
 *  here in each host's language (the real hosts' own are in pulumi/pulumi's repository, not in the
 *  pkg/v3 module): tools/pulumi/conformance/testdata/<host>/{policies,providers}. */
const testdataDir = (host, kind) => path.join(toolsDir, "conformance", "testdata", host, kind);
const NO_POLICY_PACKS =
    "needs policy packs in the host's language, and this repository has none for it yet (tools/pulumi/conformance/testdata)";
const NO_PROVIDERS =
    "needs component providers in the host's language, and this repository has none for it yet (tools/pulumi/conformance/testdata)";

/** Tests not run for any host, and why: they would reach beyond this machine. */
const NOT_RUN = {
    "l2-resource-asset-archive":
        "reads remote assets from raw.githubusercontent.com: runs here stay on loopback (this machine reaches only the package registries)",
};

/** Each host: its binary in .pulumi-cli, the core SDK it gets, and the real host's lists. */
const HOSTS = {
    nodejs: {
        realTest: "sdk/nodejs/cmd/pulumi-language-nodejs/language_test.go",
        configuration:
            "The real test runs the suite twice, once with ts-node (`TestLanguageTSNode`) and once with the programs compiled by tsc first (`TestLanguageTSC`, a mode of the real host that only its test can set, not a user), each with the published SDKs (its local-SDK runs are skipped there). This is the ts-node run, which is what a TypeScript user gets.",
        // The @pulumi/pulumi this repository installs (package-lock.json), which every TypeScript
        // test runs (the registry has no 3.274.1), or the one --nodejs-sdk names.
        coreSdk(dir, args) {
            if (args.nodejsSdk) {
                fs.mkdirSync(dir);
                const tgz = execFileSync("npm", ["pack", "--silent", `@pulumi/pulumi@${args.nodejsSdk}`], {
                    cwd: path.dirname(dir),
                    encoding: "utf8",
                }).trim();
                execFileSync("tar", ["-xzf", tgz, "-C", dir, "--strip-components=1"], { cwd: path.dirname(dir) });
            } else {
                const from = path.join(root, "node_modules", "@pulumi", "pulumi");
                fs.cpSync(from, dir, { recursive: true, filter: (src) => path.basename(src) !== "node_modules" });
            }
            return { dir, version: JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version };
        },
        expectedFailures: {
            "l1-expand-final": "Node.js program generation does not support `...` argument expansion",
            "l3-deferred-outputs": "Cannot find name '_arg0_'.",
            "l3-component-primitive-conversions":
                "primitive conversions accepted by PCL bind, but not lowered correctly by SDK generators",
            "l2-resource-schema-secret": "does not preserve schema-secret unknown outputs",
            "l3-range-invoke-output-traversal":
                "pulumi#12507: range loop variable captured by reference; indexed output resolves with the wrong index",
            "l2-raw-string-bytes":
                "the Node.js SDK does not set accepts_byte_string: strings containing non-UTF8 bytes cannot be received from the engine",
        },
        // What the real test skips besides: l2-large-string on Node.js 24 and later (nodejs/node#58197).
        realSkips: () =>
            Number(process.versions.node.split(".")[0]) >= 24
                ? { "l2-large-string": "skipped on Node.js 24+ (nodejs/node#58197)" }
                : {},
        notHere: {
            // The SDK's doing, not the host's: 3.270.0 resolves a failed read's outputs from the
            // properties it sent; 3.276.0 resolves them as unknown (runtime/resource.js, readResource),
            // and passes with this host (`--nodejs-sdk 3.276.0`).
            "l2-call-per-value-deps":
                "codegen/nodejs writes the call inside `pulumi.all([pa.text, pb.text]).apply(...)`, so g depends on pa and pb and not on the call's resource c (index.ts as Pulumi's generator writes it; fails with @pulumi/pulumi 3.276.0 too)",
            // The same: these pass with 3.276.0 (a run of them with --nodejs-sdk 3.276.0).
            ...Object.fromEntries(
                [
                    "l2-failed-create-component-continue-on-error",
                    "l2-failed-create-continue-on-error-read",
                    "l2-failed-create-downstream-continue-on-error",
                    "l2-resource-read-depends-on",
                    "l2-resource-read-id-rewrite",
                ].map((t) => [
                    t,
                    "needs an @pulumi/pulumi newer than 3.270.0 (this repository's; the registry has no 3.274.1): with 3.276.0 from the registry (--nodejs-sdk 3.276.0) this host passes it",
                ]),
            ),
            "l2-invoke-per-value-deps":
                "the SDK reports one dependency more for the invoke's argument than the suite expects (StringResource a), with @pulumi/pulumi 3.270.0 and 3.276.0 alike; the Go and Python SDKs of v3.274.1 do the same here",
            "l2-failed-read-continue-on-error":
                "@pulumi/pulumi 3.270.0 (this repository's; the registry has no 3.274.1) resolves a failed read's outputs as values, not unknowns; with 3.276.0 from the registry (--nodejs-sdk 3.276.0) this host passes it",
        },
    },
    python: {
        realTest: "sdk/python/cmd/pulumi-language-python/language_test.go",
        configuration:
            "The real test runs the suite in three configurations, with uv and a typechecker (mypy for `TestLanguageDefault`, pyright for `TestLanguageTOML` and `TestLanguageClasses`), each with published and local SDKs. This host leaves the typechecker option out (docs/python.md), so this is one run with the published SDKs and the toolchain the generated projects name (pip): a program that runs but would fail mypy passes here.",
        // The Python SDK of the pinned sdk/v3 (its python folder, 3.274.1: PyPI has no such release),
        // which the host's Pack builds into a wheel, as the real test packs its own checkout. With a
        // core SDK the generated projects get a virtualenv of their own (codegen/python); without
        // one they would install into the ambient Python.
        coreSdk(dir) {
            fs.cpSync(path.join(goModuleDir("github.com/pulumi/pulumi/sdk/v3"), "python"), dir, { recursive: true });
            makeWritable(dir);
            return { dir, version: pinnedVersion().slice(1) };
        },
        expectedFailures: {
            "l2-config-default-from-invoke": "config default from an invoke is Output[Any], not str | None; fails mypy",
            "l1-builtin-try": "Temporarily disabled until pr #18915 is submitted",
            "l1-expand-final": "Python program generation does not support `...` argument expansion",
            "l1-builtin-can": "Temporarily disabled until pr #18916 is submitted",
            "l3-deferred-outputs": "does not type-check",
            "l3-component-primitive-conversions":
                "primitive conversions accepted by PCL bind, but not lowered correctly by SDK generators",
            "l3-component-nested": "syntax error",
            "l2-resource-schema-secret": "does not preserve schema-secret unknown outputs",
            "l3-range-invoke-output-traversal": "len()/apply on an Output: generated program fails mypy",
            "l2-raw-string-bytes":
                "the Python SDK does not set accepts_byte_string: strings containing non-UTF8 bytes cannot be received from the engine",
        },
        realSkips: () => ({
            "l2-discriminated-union": "pulumi#21830: expected to fail",
            "l2-discriminated-union-many": "pulumi#21830: expected to fail",
            "l2-discriminated-union-marked-key": "pulumi#21830: expected to fail",
        }),
        notHere: {
            "l2-call-per-value-deps":
                "codegen/python writes the call inside `pulumi.Output.all(...).apply(...)` of both arguments, so g depends on pa and pb and not on the call's resource c (__main__.py as Pulumi's generator writes it; the Node.js generator does the same)",
            "l2-invoke-per-value-deps":
                "the Python SDK of v3.274.1 reports one dependency more for the invoke's argument than the suite expects (StringResource a), as the Node.js and Go SDKs do here",
        },
    },
    go: {
        realTest: "sdk/go/pulumi-language-go/language_test.go",
        configuration:
            "The real test runs the suite with published SDKs (`TestLanguagePublished`), with local ones (`TestLanguageLocal`) and with extra types (`TestLanguageExtraTypes`). This is the published run.",
        // The pinned sdk/v3 from the Go module cache, which the host's Pack copies, as the real test
        // packs its own checkout.
        coreSdk() {
            return { dir: goModuleDir("github.com/pulumi/pulumi/sdk/v3"), version: pinnedVersion().slice(1) };
        },
        expectedFailures: {
            "l2-resource-any":
                "a list inside an any-typed input generates pulumi.Any{...}, but pulumi.Any is a func not a type; does not compile",
            "l2-config-default-from-invoke":
                "config variable defaulting to an invoke result is never declared; generated code does not compile",
            "l1-config-types-object": "fails to compile",
            "l1-config-types-optional":
                "fails to compile: cfg.GetObject signature mismatch (same as l1-config-types-object)",
            "l1-builtin-try": "pulumi#18506 Support try in Go program generation",
            "l1-expand-final": "Go program generation does not support `...` argument expansion",
            "l1-builtin-can": "pulumi#18570 Support can in Go program generation",
            "l1-builtin-list": "list(string) config decoded as string; element/split emit TODO stubs",
            "l1-builtin-object": "entries/lookup emit TODO stubs",
            "l2-builtin-object": "entries/lookup emit TODO stubs",
            "l1-builtin-to-json": "Go doesn't support output based toJSON",
            "l2-resource-config-objects":
                "cannot convert plainBooleanMap (variable of type string) to type pulumi.BoolMap",
            "l2-resource-schema-secret": "does not preserve schema-secret unknown outputs",
            "l2-plain":
                "map literals nested in plain list elements render without a type; generated code does not compile",
            "l2-component-program-resource-ref":
                "pulumi#18140: cannot use ref.Value (pulumi.StringOutput) as string value",
            "l2-component-component-resource-ref":
                "pulumi#18140: cannot use ref.Value (pulumi.StringOutput) as string value",
            "l3-range": "list(string) and map(string) config values decoded as raw JSON strings by cfg.Require",
            "l3-range-resource-output-traversal": "pulumi#21678: cannot range over an ArrayOutput",
            "l3-range-invoke-output-traversal": "pulumi#21678: len() of an invoke's ArrayOutput does not compile",
            "l3-for": "syntax errors",
            "l3-for-resource": "syntax errors",
            "l3-component-nested": "cannot use true (constant of type bool) as pulumi.BoolInput",
            "l3-resource-keyword-overlap":
                "same component-input/output type bugs as l3-component-nested; does not compile",
            "l3-deferred-outputs": "does not compile && for expressions are not supported",
            "l3-rewrite-conversions": "does not compile; missing necessary casts for pulumi inputs",
            "l3-component-config-primitives": "does not compile; missing necessary casts for pulumi inputs",
            "l3-component-config-objects": "does not compile; missing necessary casts for pulumi inputs",
            "l3-map-keys": "does not compile; missing necessary casts for pulumi inputs",
            "l3-component-provider":
                "does not compile; missing necessary casts for pulumi inputs and untyped component outputs",
            "l2-resource-primitive-conversions":
                "primitive conversions accepted by PCL bind, but not lowered correctly by SDK generators",
            "l3-component-primitive-conversions":
                "primitive conversions accepted by PCL bind, but not lowered correctly by SDK generators",
            "l3-range-list-ref": "fails with syntax errors: undefined: err",
            "l3-range-map-ref": "fails with syntax errors: mapResource.K1 undefined",
            "l3-range-bool-ref": "fails with syntax errors: index < createBool (mismatched types int and bool)",
            "l1-builtin-string": 'cannot convert strings.Split(aString, "-") ([]string) to pulumi.StringArray',
            "l2-failed-create-recover-continue-on-error": "Go SDK output recovery is not implemented",
        },
        notHere: {
            // The real test runs these with hand-written programs (its programOverrides, testdata/overrides).
            ...Object.fromEntries(
                [
                    "l2-component-property-deps",
                    "l2-provider-call",
                    "l2-provider-call-explicit",
                    "l2-resource-elide-unknowns",
                    "l3-component-simple",
                ].map((t) => [
                    t,
                    "the real test runs a hand-written program instead of the generated one (its testdata/overrides), which is in pulumi/pulumi's repository, not in the pkg/v3 module",
                ]),
            ),
            // Programs that Pulumi's Go code generator (pkg/v3/codegen/go) writes wrong at v3.274.1:
            // the host builds them as the real one does, and `go build` refuses them.
            "l1-operator-precedence":
                "codegen/go exports a plain string where an Input is needed: main.go does not compile (cannot use tmp2 (string) as pulumi.Input)",
            "l2-call-per-value-deps":
                "codegen/go uses variables outside the scope it declares them in: main.go does not compile (undefined: paText)",
            "l2-recover-invoke":
                'codegen/go has no `recover`: main.go does not compile ("TODO: call recover" is not a pulumi.Input)',
            "l2-resource-self-reference":
                "codegen/go writes an SDK that uses NodeMapInput and NodeArrayInput without defining them: the SDK does not compile",
            "l2-invoke-per-value-deps":
                "the Go SDK (sdk/v3) reports one dependency more for an invoke argument than the suite expects (StringResource a): the SDK's doing; the host passes no dependencies",
        },
        realSkips: (tests) =>
            Object.fromEntries(
                tests.filter((t) => t.startsWith("provider-")).map((t) => [t, "skipped: provider tests"]),
            ),
    },
    java: {
        realTest: "pkg/cmd/pulumi-language-java/language_test.go",
        realSource:
            "pulumi/pulumi-java at 000d6303e2, the newest copy reachable here (its expected failures name pulumi 3.232 and 3.234 as the versions they date from)",
        configuration:
            "The real test packs pulumi-java's own core SDK (sdk/java, built with Gradle) and runs the suite with Maven (`use-executor: mvn`). This host builds with Maven only and its programs get the published core SDK, com.pulumi:pulumi from Maven Central, as a user's do; the test providers' SDKs are this host's (sdkgen.go), packed into a Maven repository in the run's folder.",
        // Maven keeps what it resolves from the SDKs' repositories (the packed test providers) in
        // its local repository and never reads a release again, so a run reads its own copy of
        // ~/.m2/repository without the artifacts an earlier run resolved from such a repository.
        env(tmp) {
            const local = path.join(tmp, "m2");
            const home = path.join(os.homedir(), ".m2", "repository");
            const packed = (dir) => {
                const marks = path.join(dir, "_remote.repositories");
                if (!fs.existsSync(marks)) return false;
                const lines = fs
                    .readFileSync(marks, "utf8")
                    .split("\n")
                    .filter((l) => l && !l.startsWith("#"));
                return lines.length > 0 && lines.every((l) => />local-[0-9a-f]+=$/.test(l));
            };
            if (fs.existsSync(home))
                fs.cpSync(home, local, {
                    recursive: true,
                    filter: (src) => !fs.statSync(src).isDirectory() || !packed(src),
                });
            return { MAVEN_OPTS: `${process.env.MAVEN_OPTS ?? ""} -Dmaven.repo.local=${local}`.trim() };
        },
        // No core SDK to pack: the generated pom.xml names com.pulumi:pulumi of Maven Central.
        coreSdk() {
            return { dir: "", version: JAVA_SDK_VERSION };
        },
        // The copy of pulumi-java read runs an older suite than v3.274.1: at least v3.235.0 (its list
        // names l2-resource-read, first in 3.235) and older than v3.238.0 (it has no snapshot of
        // l1-config-types-optional, a 3.238 test that writes one); 3.235 to 3.237 have the same tests.
        // These are the tests of v3.274.1 that v3.235.0 does not have (pulumi/pulumi's git tags):
        // whether the real Java host passes them is not known.
        newerThanReal: {
            reason: "not known: the test is newer than the pulumi (3.235 to 3.237) that the copy of pulumi-java read runs",
            tests: new Set([
                "l1-builtin-range",
                "l1-component-sourceless",
                "l1-config-types-optional",
                "l1-expand-final",
                "l1-for-expression",
                "l1-operator-precedence",
                "l2-call-per-value-deps",
                "l2-component-output-value-input-deps",
                "l2-config-default-from-invoke",
                "l2-discriminated-union-many",
                "l2-discriminated-union-marked-key",
                "l2-docs",
                "l2-explicit-extension-provider",
                "l2-extension-and-base-resource",
                "l2-extension-borrowed-type",
                "l2-extension-parameterized-resource",
                "l2-failed-create-component-continue-on-error",
                "l2-failed-create-continue-on-error-read",
                "l2-failed-create-downstream-continue-on-error",
                "l2-failed-read-continue-on-error",
                "l2-invoke-default-argument",
                "l2-invoke-depends-on-component",
                "l2-invoke-multi-argument",
                "l2-invoke-per-value-deps",
                "l2-invoke-provider-inheritance",
                "l2-invoke-union-dependencies",
                "l2-kebab-names",
                "l2-large-map",
                "l2-map-keys-adversarial",
                "l2-map-keys-invoke-call",
                "l2-nested-collections",
                "l2-primitive-ref-optional",
                "l2-provider-config-enum",
                "l2-raw-string-bytes",
                "l2-recover-invoke",
                "l2-reserved-names",
                "l2-resource-any",
                "l2-resource-const",
                "l2-resource-exists",
                "l2-resource-hook-after-failure",
                "l2-resource-hook-ignore-errors",
                "l2-resource-hook-on-error",
                "l2-resource-hook-panic",
                "l2-resource-read-depends-on",
                "l2-resource-read-id-rewrite",
                "l2-resource-read-unknown",
                "l2-resource-schema-secret",
                "l2-resource-self-reference",
                "l2-secret-unknown",
                "l2-target-up-skipped-create-output",
                "l3-component-invoke",
                "l3-component-provider",
                "l3-component-provider-inheritance",
                "l3-map-keys",
                "l3-range-bool-ref",
                "l3-range-invoke-output-traversal",
                "l3-range-list-ref",
                "l3-range-map-ref",
                "l3-resource-keyword-overlap",
                "policy-analyze-stack",
                "policy-resource-metadata",
                "policy-unknowns",
            ]),
        },
        expectedFailures: Object.fromEntries(
            [
                "l1-builtin-base64",
                "l1-builtin-can",
                "l1-builtin-file",
                "l1-builtin-list",
                "l1-builtin-min-max",
                "l1-builtin-object",
                "l1-builtin-project-root",
                "l1-builtin-project-root-main",
                "l1-builtin-require-pulumi-version",
                "l1-builtin-secret",
                "l1-builtin-sha1",
                "l1-builtin-stash",
                "l1-builtin-to-json",
                "l1-builtin-try",
                "l1-config-secret",
                "l1-config-types-object",
                "l1-config-types-primitive",
                "l1-elide-index",
                "l1-keyword-overlap",
                "l1-output-string",
                "l1-proxy-index",
                "l1-stack-reference",
                "l2-builtin-object",
                "l2-component-call-plain",
                "l2-component-call-simple",
                "l2-component-component-resource-ref",
                "l2-component-program-resource-ref",
                "l2-component-property-deps",
                "l2-discriminated-union",
                "l2-elide-index",
                "l2-enum",
                "l2-explicit-providers",
                "l2-external-enum",
                "l2-id-type",
                "l2-index-mod",
                "l2-invoke-output-only",
                "l2-invoke-scalar",
                "l2-invoke-scalars",
                "l2-invoke-secrets",
                "l2-logical-name",
                "l2-map-keys",
                "l2-module-format",
                "l2-name-conflicts",
                "l2-namespaced-provider",
                "l2-parameterized-invoke",
                "l2-parameterized-resource",
                "l2-provider-call",
                "l2-provider-call-explicit",
                "l2-provider-grpc-config",
                "l2-provider-grpc-config-schema-secret",
                "l2-provider-grpc-config-secret",
                "l2-proxy-index",
                "l2-resource-asset-archive",
                "l2-resource-config-objects",
                "l2-resource-config-primitives",
                "l2-resource-elide-unknowns",
                "l2-resource-name-type",
                "l2-resource-names",
                "l2-resource-option-alias",
                "l2-resource-option-deleted-with",
                "l2-resource-option-env-var-mappings",
                "l2-resource-option-hooks",
                "l2-resource-option-plugin-download-url",
                "l2-resource-option-replace-with",
                "l2-resource-option-replacement-trigger",
                "l2-resource-option-version-sdk",
                "l2-resource-optional",
                "l2-resource-parent-inheritance",
                "l2-resource-primitive-conversions",
                "l2-resource-primitive-defaults",
                "l2-resource-read",
                "l2-resource-secret",
                "l2-rtti",
                "l2-snake-names",
                "l2-union",
                "l3-component-config-objects",
                "l3-component-config-primitives",
                "l3-component-nested",
                "l3-component-primitive-conversions",
                "l3-component-simple",
                "l3-deferred-outputs",
                "l3-for",
                "l3-for-resource",
                "l3-range",
                "l3-range-parent-scope",
                "l3-range-ref",
                "l3-range-resource-output-traversal",
                "l3-rewrite-conversions",
                "l3-splat",
                "policy-config",
                "policy-config-schema",
                "policy-dryrun",
                "policy-enforcement-config",
                "policy-invalid",
                "policy-remediate",
                "policy-simple",
                "policy-stack-config",
                "policy-stack-tags",
                "provider-alias-component",
                "provider-builtin-info-component",
                "provider-depends-on-component",
                "provider-ignore-changes-component",
                "provider-replacement-trigger-component",
                "provider-resource-component",
            ].map((t) => [t, "listed as an expected failure (program generation, compilation or the Java SDK)"]),
        ),
        realSkips: () => ({}),
        notHere: {
            // The Java SDK's doing (com.pulumi:pulumi, as its errors in the run's log say).
            "l2-large-map":
                "the Java SDK's gRPC client refuses the engine's answer: protobuf's recursion limit (100) is below the map's 300 levels (\"Protocol message had too many levels of nesting\")",
            "l2-raw-string-bytes":
                "the Java SDK does not set accepts_byte_string: a string with non-UTF8 bytes cannot be received from the engine (as the real Node.js and Python hosts list it)",
            ...Object.fromEntries(
                [
                    "l2-resource-hook-after-failure",
                    "l2-resource-hook-ignore-errors",
                    "l2-resource-hook-on-error",
                    "l2-resource-hook-panic",
                ].map((t) => [
                    t,
                    "resource hooks: the Java SDK has none (its ResourceOptions has no hooks option), so there is nothing to generate them for",
                ]),
            ),
            ...Object.fromEntries(
                ["l2-resource-read-unknown", "l2-resource-read-depends-on", "l2-failed-read-continue-on-error"].map(
                    (t) => [
                        t,
                        "the Java SDK resolves a read resource's outputs in a preview from the values it sent, where the suite expects unknowns (as @pulumi/pulumi 3.270.0 does)",
                    ],
                ),
            ),
            "l2-invoke-depends-on-component":
                "the Java SDK skips an invoke in a preview only while a custom resource it depends on has no ID (DeploymentImpl.Invoke keeps the CustomResource ones among its dependencies), so a component in dependsOn does not make the result unknown",
            "l2-target-up-skipped-create-output":
                "the Java SDK does not read RegisterResourceResponse.result: a create that a targeted update skips gives known, empty outputs, where the suite expects unknowns",
            ...Object.fromEntries(
                ["l2-reserved-names", "l2-kebab-names"].map((t) => [
                    t,
                    "the Java SDK cannot serialize an object of an output type (a @CustomType class), so exporting one fails (\"Type '...' is not a supported argument type\"); nor can pulumi-java's sdk/java source read here",
                ]),
            ),
            "l2-resource-schema-secret":
                "the Java SDK sends an unknown output as a plain unknown, dropping its secret mark (its Serializer returns the unknown before the secret case), so in a preview the stack output is not secret",
            ...Object.fromEntries(
                ["l2-map-keys-adversarial", "l3-map-keys"].map((t) => [
                    t,
                    'the Java SDK drops every map key that starts with "__" when it reads a value from the engine (Deserializer.deserializeStruct), so the map\'s such keys are lost',
                ]),
            ),
            "l2-primitive-ref-optional":
                "gap: the SDK's output types read an absent list or map as an empty one (as pulumi-java's do), so the program's `== null` on one is false",
            "l2-discriminated-union-marked-key":
                "gap: the Java program generator does not pick a discriminated union's variant (Either side) for an object literal",
        },
        // What this host's own generators do not write yet (they are not pulumi-java's, which is
        // not served here): named from the diagnostic, as a gap of the host.
        gap(message) {
            const sdk = /does not support: (.*)/.exec(message);
            if (sdk) return `gap: this host's Java SDK generator (sdkgen.go) does not write ${sdk[1]}`;
            const generator =
                /(?:generate (?:project|package [^:]+): )?(?:main\.pp:[\d,.-]+: )?(.*? is not supported by the Java (program|SDK) generator[^;]*)/.exec(
                    message,
                );
            if (generator)
                return `gap: this host's Java ${generator[2]} generator (${generator[2] === "SDK" ? "sdkgen" : "programgen"}.go): ${generator[1]}`;
            return null;
        },
    },
};

/** The folder of a module that tools/pulumi/go.mod pins, in the Go module cache. */
function goModuleDir(module) {
    return execFileSync("go", ["list", "-m", "-f", "{{.Dir}}", module], {
        cwd: toolsDir,
        encoding: "utf8",
        env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ""} -mod=readonly`.trim() },
    }).trim();
}

/** The module cache is read-only; a copy from it is built in, so it must be writable. */
function makeWritable(dir) {
    for (const f of fs.readdirSync(dir, { recursive: true })) fs.chmodSync(path.join(dir, f), 0o755);
    fs.chmodSync(dir, 0o755);
}

/** Why a test cannot pass here although the real host passes it, for any host, from the test and its
 *  failure's gist; null when nothing explains it. A reason that starts "gap:" is a part of this
 *  host that is missing, named: a fault of the host, not of the machine. */
function notHereReason(host, test, message = "") {
    if (HOSTS[host].notHere[test]) return HOSTS[host].notHere[test];
    if (test.startsWith("policy-") && !fs.existsSync(testdataDir(host, "policies"))) return NO_POLICY_PACKS;
    if (test.startsWith("provider-") && !fs.existsSync(testdataDir(host, "providers"))) return NO_PROVIDERS;
    return HOSTS[host].gap?.(message) ?? null;
}

function parseArgs(argv) {
    const args = { hosts: Object.keys(HOSTS), run: "", parallel: 2, keep: false, nodejsSdk: "" };
    for (let i = 0; i < argv.length; i++) {
        const value = () => {
            if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
            return argv[++i];
        };
        switch (argv[i]) {
            case "--host":
                args.hosts = value().split(",");
                break;
            case "--run":
                args.run = value();
                break;
            case "--parallel":
                args.parallel = Number(value());
                break;
            case "--keep":
                args.keep = true;
                break;
            case "--doc": // docs/conformance.md written again from the record (after editing a run's note)
                args.doc = true;
                break;
            case "--nodejs-sdk":
                args.nodejsSdk = value();
                break;
            default:
                throw new Error(`unknown argument ${argv[i]} (see scripts/conformance.js)`);
        }
    }
    for (const host of args.hosts) if (!HOSTS[host]) throw new Error(`unknown host ${host}`);
    return args;
}

/** A failure's gist on one line: testify's "Error:" text where the suite asserted, else its first words. */
function gist(messages = []) {
    const text = messages.join(" ").replace(/\s+/g, " ");
    const error = /Error: (.*?)(?: Test: | Messages: |$)/.exec(text);
    return (error ? error[1] : text).trim().slice(0, 200);
}

/** Runs the suite against one host; resolves with each test's result. */
async function runHost(host, binDir, driver, args, tests) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `conformance-${host}-`));
    const home = path.join(tmp, "home");
    fs.mkdirSync(home);
    const core = HOSTS[host].coreSdk(path.join(tmp, "core-sdk"), args);
    const realSkips = HOSTS[host].realSkips(tests);
    const env = {
        ...process.env,
        PATH: `${binDir}${path.delimiter}${process.env.PATH}`,
        PULUMI_HOME: home,
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        PULUMI_CONFIG_PASSPHRASE: "conformance",
        ...HOSTS[host].env?.(tmp),
    };
    const started = Date.now();
    const results = [];
    const child = spawn(
        driver,
        [
            "-language",
            host,
            "-host",
            path.join(binDir, `pulumi-language-${host}`),
            "-root",
            path.join(tmp, "run"),
            "-core-sdk",
            core.dir,
            "-core-version",
            core.version,
            "-run",
            args.run,
            "-skip",
            JSON.stringify(NOT_RUN),
            "-parallel",
            String(args.parallel),
            ...["policies", "providers"].flatMap((kind) =>
                fs.existsSync(testdataDir(host, kind))
                    ? [kind === "policies" ? "-policy-packs" : "-providers", testdataDir(host, kind)]
                    : [],
            ),
        ],
        { env, stdio: ["ignore", "pipe", "pipe"] },
    );
    // The engine's own progress goes to the same stdout: only the driver's lines are results.
    const output = fs.createWriteStream(path.join(tmp, "output.log"));
    child.stderr.pipe(output);
    for await (const line of readline.createInterface({ input: child.stdout })) {
        // The engine writes progress without a line's end, so a result may follow it on one line.
        const at = line.indexOf('{"test":');
        if (at < 0) {
            output.write(line + "\n");
            continue;
        }
        if (at > 0) output.write(line.slice(0, at) + "\n");
        const r = JSON.parse(line.slice(at));
        results.push(r);
        console.log(`  ${r.status.padEnd(4)}  ${r.test}${r.status === "fail" ? `: ${gist(r.messages)}` : ""}`);
    }
    const code = await new Promise((resolve) => child.on("close", resolve));
    if (code !== 0)
        throw new Error(`the conformance driver exited ${code} for ${host}: see ${path.join(tmp, "output.log")}`);
    const seconds = Math.round((Date.now() - started) / 1000);
    if (args.keep || results.some((r) => r.status === "fail")) console.log(`  (projects and logs kept in ${tmp})`);
    else fs.rmSync(tmp, { recursive: true, force: true });
    return {
        results: results.sort((a, b) => a.test.localeCompare(b.test)),
        seconds,
        coreVersion: core.version,
        skips: realSkips,
    };
}

/** What the real host does with a test: passes, expected failure, or skipped. */
function realOutcome(host, test, skips) {
    const failure = HOSTS[host].expectedFailures[test];
    if (failure) return `expected failure: ${failure}`;
    if (skips[test]) return `skipped: ${skips[test]}`;
    if (HOSTS[host].newerThanReal?.tests.has(test)) return HOSTS[host].newerThanReal.reason;
    if (NEWER_THAN_REAL.has(test)) return "not known: the test is newer than the copy of pulumi/pulumi read";
    return "passes";
}

function summary(results) {
    const count = (s) => results.filter((r) => r.status === s).length;
    return { run: results.length - count("skip"), pass: count("pass"), fail: count("fail"), skip: count("skip") };
}

const recordFile = path.join(root, "docs", "conformance.json");

/** The record a run leaves (docs/conformance.json, from which docs/conformance.md is written; a run's
 *  optional `note`, written by hand, says what its figures do not): a run
 *  of the whole suite against every host starts a new one; a run of some tests (--run) or of some
 *  hosts (--host) replaces their rows of the record of the same CLI and core SDKs, and is listed
 *  beside the runs before it. */
function updateRecord(runs, seconds, selection, allHosts = true) {
    const run = {
        date: new Date().toISOString().slice(0, 10),
        commit: execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim(),
        selection,
        ...(allHosts ? {} : { hosts: Object.keys(runs) }),
        minutes: Math.round(seconds / 60),
        hostMinutes: Object.fromEntries(
            Object.entries(runs)
                .filter(([, r]) => !r.notJudged)
                .map(([host, r]) => [host, Math.round(r.seconds / 60)]),
        ),
    };
    let record = fs.existsSync(recordFile) ? JSON.parse(fs.readFileSync(recordFile, "utf8")) : null;
    const sameSdks =
        record &&
        record.cli === pinnedVersion() &&
        Object.entries(runs).every(
            ([host, r]) =>
                r.notJudged || !record.hosts[host]?.results || record.hosts[host].coreVersion === r.coreVersion,
        );
    if ((!selection && allHosts) || !sameSdks) record = { cli: pinnedVersion(), runs: [], hosts: {} };
    run.id = Math.max(0, ...record.runs.map((r) => r.id)) + 1;
    record.runs.push(run);
    for (const [host, r] of Object.entries(runs)) {
        if (r.notJudged) {
            record.hosts[host] = { notJudged: r.notJudged };
            continue;
        }
        const kept = (record.hosts[host]?.results ?? []).filter((old) => !r.results.some((n) => n.test === old.test));
        const results = [
            ...kept,
            ...r.results.map(({ test, status, messages }) => ({
                test,
                status,
                run: run.id,
                ...(status === "fail" ? { message: gist(messages) } : {}),
            })),
        ];
        record.hosts[host] = {
            coreVersion: r.coreVersion,
            skips: { ...record.hosts[host]?.skips, ...r.skips },
            results: results.sort((a, b) => a.test.localeCompare(b.test)),
        };
    }
    writeRecord(record);
    return pruned(record);
}

/** The record without the runs none of whose rows is left (a later run of the same tests replaced
 *  them all): they say nothing about the table any more. */
function pruned(record) {
    const used = new Set(Object.values(record.hosts).flatMap((h) => (h.results ?? []).map((r) => r.run)));
    return { ...record, runs: record.runs.filter((r) => used.has(r.id)) };
}

/** The record (pruned) with a line for each test's result, so that a run's change reads as a short diff. */
function writeRecord(record) {
    const text = JSON.stringify(pruned(record), null, 2).replace(
        /\{\n\s+"test": ("[^"]+"),\n\s+"status": ("\w+"),\n\s+"run": (\d+)(?:,\n\s+"message": ("(?:[^"\\]|\\.)*"))?\n\s+\}/g,
        (_, test, status, run, message) =>
            `{ "test": ${test}, "status": ${status}, "run": ${run}${message ? `, "message": ${message}` : ""} }`,
    );
    fs.writeFileSync(recordFile, text + "\n");
}

function writeDoc(record) {
    const cell = (s) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
    const several = record.runs.length > 1;
    const runLine = (r) =>
        `${several ? `Run ${r.id}: ` : ""}${r.date}, commit ${r.commit}, ` +
        (r.selection
            ? `the tests matching \`${r.selection}\` (\`npm run conformance -- --run '${r.selection}'\`)`
            : "the whole suite") +
        (r.hosts ? ` against the ${r.hosts.join(", ")} host${r.hosts.length > 1 ? "s" : ""}` : "") +
        `, ${r.minutes} minutes on this repository's 2-core machine (` +
        Object.entries(r.hostMinutes)
            .map(([host, m]) => `${host} ${m}`)
            .join(", ") +
        ")." +
        (r.note ? ` ${r.note}` : "");
    const lines = [
        "# Language conformance",
        "",
        `Written by \`npm run conformance\` (scripts/conformance.js, which keeps its record in`,
        `conformance.json) with the pulumi CLI and pulumi-test-language ${record.cli} (the pinned pkg/v3), against`,
        "the language hosts of tools/pulumi/cmd. What the real host does with each test is from its",
        "language_test.go, in the copy each host's section names.",
        "",
        "The suite generates each test's program and SDKs with the host, installs them with the SDK of this",
        "machine's registries, runs them through the engine and checks the result. Generated code is not",
        "compared with the real hosts' snapshots (they are not in the module): it is written, and judged by",
        "running it. The policy packs and component providers that the `policy-*` and `provider-*` tests",
        "name are this repository's own, in each host's language (tools/pulumi/conformance/testdata). See",
        "CONTRIBUTING.md for how to run it.",
        "",
        several ? "The runs this table is made of (the `run` column says which run each row is from):" : "The run:",
        "",
        ...record.runs.map((r) => (several ? `- ${runLine(r)}` : runLine(r))),
        "",
        "| host | core SDK | tests run | passed | failed | skipped | the real host's expected failures |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ];
    for (const [host, h] of Object.entries(record.hosts)) {
        if (h.notJudged) {
            lines.push(`| ${host} | | ${cell(h.notJudged)} | | | | |`);
            continue;
        }
        const s = summary(h.results);
        const expected = h.results.filter((r) => HOSTS[host].expectedFailures[r.test]).length;
        lines.push(`| ${host} | ${h.coreVersion} | ${s.run} | ${s.pass} | ${s.fail} | ${s.skip} | ${expected} |`);
    }
    for (const [host, h] of Object.entries(record.hosts)) {
        if (h.notJudged) continue;
        lines.push("", `## ${host}`, "", HOSTS[host].configuration, "");
        lines.push(`The real host: \`${HOSTS[host].realTest}\` in ${HOSTS[host].realSource ?? REAL_SOURCE}.`, "");
        lines.push(
            `| test | here |${several ? " run |" : ""} real host | why not here |`,
            `| --- | --- |${several ? " --- |" : ""} --- | --- |`,
        );
        for (const r of h.results) {
            const real = realOutcome(host, r.test, h.skips);
            // A failure's reason is shown whatever the real host does; one the real host passes must have one.
            const why =
                r.status === "fail"
                    ? (notHereReason(host, r.test, r.message) ?? (real === "passes" ? "**not explained**" : ""))
                    : "";
            lines.push(`| ${r.test} | ${r.status} |${several ? ` ${r.run} |` : ""} ${cell(real)} | ${cell(why)} |`);
        }
    }
    fs.writeFileSync(path.join(root, "docs", "conformance.md"), lines.join("\n") + "\n");
    execFileSync(path.join(root, "node_modules", ".bin", "prettier"), [
        "--write",
        "--log-level=warn",
        recordFile,
        path.join(root, "docs", "conformance.md"),
    ]);
}

async function main() {
    const args = parseArgs(process.argv.slice(2));
    if (args.doc) {
        const record = pruned(JSON.parse(fs.readFileSync(recordFile, "utf8")));
        writeRecord(record);
        return writeDoc(record);
    }
    process.env.PULUMI_CHATBOT_BUILD_CLI = "1";
    const binDir = path.dirname(pulumiPath());
    const driver = path.join(binDir, "pulumi-conformance");
    execFileSync("go", ["build", "-trimpath", "-o", driver, "./conformance"], {
        cwd: toolsDir,
        stdio: "inherit",
        env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: `${process.env.GOFLAGS ?? ""} -mod=readonly`.trim() },
    });
    const tests = execFileSync(driver, ["-list"], { encoding: "utf8" }).trim().split("\n");
    const started = Date.now();
    const runs = {};
    let unexplained = 0;
    for (const host of args.hosts) {
        if (!fs.existsSync(path.join(binDir, `pulumi-language-${host}`))) {
            console.log(`${host}: no host built (tools/pulumi/cmd/pulumi-language-${host}), not run`);
            continue;
        }
        if (HOSTS[host].notJudged) {
            console.log(`${host}: ${HOSTS[host].notJudged}`);
            runs[host] = { notJudged: HOSTS[host].notJudged };
            continue;
        }
        console.log(`${host}:`);
        const run = await runHost(host, binDir, driver, args, tests);
        runs[host] = run;
        const s = summary(run.results);
        const bad = run.results.filter(
            (r) =>
                r.status === "fail" &&
                realOutcome(host, r.test, run.skips) === "passes" &&
                !notHereReason(host, r.test, gist(r.messages)),
        );
        const gaps = run.results.filter(
            (r) => r.status === "fail" && notHereReason(host, r.test, gist(r.messages))?.startsWith("gap:"),
        );
        unexplained += bad.length;
        console.log(
            `${host}: ${s.run} run, ${s.pass} passed, ${s.fail} failed, ${s.skip} skipped in ${run.seconds} s` +
                (gaps.length ? `; ${gaps.length} failed on a gap of this host (docs/conformance.md)` : "") +
                (bad.length ? `; failing where the real host passes: ${bad.map((r) => r.test).join(", ")}` : ""),
        );
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`conformance: ${seconds} s`);
    writeDoc(updateRecord(runs, seconds, args.run, args.hosts.length === Object.keys(HOSTS).length));
    process.exitCode = unexplained ? 1 : 0;
}

module.exports = { HOSTS, updateRecord, writeRecord, writeDoc };

if (require.main === module) {
    main().catch((e) => {
        console.error(`conformance: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
    });
}
