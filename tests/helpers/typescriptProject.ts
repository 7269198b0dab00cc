/** What the tests that compile a user's TypeScript project share. */

/** `pulumi new typescript`'s tsconfig.json (pulumi/templates, typescript/), but for `noEmit`. */
export const PULUMI_TEMPLATE_TSCONFIG = {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: true,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
    noEmit: true,
};
