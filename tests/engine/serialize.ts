/**
 * Serializes a dynamic provider exactly as `new pulumi.dynamic.Resource(provider, ...)` does
 * (@pulumi/pulumi/dynamic/index.js, serializeFunctionMaybeSecret):
 * `pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })`, whose `.text` becomes
 * the `__provider` input of every dynamic resource. The plugin evaluates that text with
 * require-from-string, so its `require()`s resolve from the plugin's cwd (NOTES "working directory").
 *
 * How the provider object is captured matters (NOTES "capture", "provider size"):
 *
 * - An object that is the `exports` of a module found in `require.cache` is captured by reference,
 *   as a `require("...")` line, not by value (runtime/closure/createClosure.js,
 *   findNormalizedModuleNameAsync + captureModuleAsync). The module's path is made relative to
 *   process.cwd(); if it contains a `node_modules` segment, the part after the FIRST such segment
 *   (the last one under pnpm's `.pnpm` store) is passed to package.js getModuleFromPath, which maps
 *   it through the package's `exports` map, e.g. `require("<package>/<subpath>")`, or
 *   `require("<package>")` when `exports` is a string.
 * - getModuleFromPath can only read the package.json if `require.resolve("<package>/...")` works
 *   *from @pulumi/pulumi's own folder*; when it does not (a package outside the node_modules tree
 *   that @pulumi/pulumi resolves from, such as our test fixture), or when the package has no
 *   `exports`, the raw subpath is kept: `require("<package>/index.js")`. Measured with
 *   tests/engine/fixtures/node_modules/standin-fixture: `require("standin-fixture/index.js")`.
 * - Anything else, including modules in local files outside node_modules (`./dist/...`), is
 *   serialized BY VALUE together with everything it reaches, which can fail or bloat
 *   (pulumi/pulumi#5294, #13960).
 */
import * as pulumi from "@pulumi/pulumi";

export async function serializeProvider(provider: object): Promise<string> {
    const sf = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
    return sf.text;
}
