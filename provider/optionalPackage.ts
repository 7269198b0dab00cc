/**
 * The packages only some users need, each an optional peer dependency (package.json's
 * `peerDependenciesMeta`): `pg` and `@aws-sdk/client-s3` for state on PostgreSQL or S3,
 * `@pulumi/policy` for the policy pack. npm installs none of them with the package, so each is
 * required where it is first used, and a missing one says what needs it and how to install it.
 */
import * as path from "path";

export type OptionalPackage = "pg" | "@aws-sdk/client-s3" | "@pulumi/policy";

/** `name`, as the user's project resolves it from this package; `feature` says what needs it. */
export function requireOptional<T>(name: OptionalPackage, feature: string): T {
    try {
        return require(name) as T;
    } catch (e) {
        const missing = (e as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND" && String(e).includes(`'${name}'`);
        if (!missing) throw e;
        throw new Error(`${feature} needs ${name}: ${installCommand(name)}`, { cause: e });
    }
}

/** `npm install <name>@<range>`, the range this package's peerDependencies accept. */
export function installCommand(name: OptionalPackage): string {
    const manifest = require(path.join(__dirname, "..", "package.json")) as {
        peerDependencies: Record<string, string>;
    };
    return `npm install ${name}@${manifest.peerDependencies[name]}`;
}
