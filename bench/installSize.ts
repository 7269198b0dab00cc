/**
 * What installing the package adds to a project (figure 8): node_modules of a fresh project with
 * `@pulumi/pulumi` alone, and with the package's `npm pack` tarball too, side by side. npm
 * resolves both from the registry (its cache where it can), as a user's `npm install` does; the
 * optional peers (pg, @aws-sdk/client-s3, @pulumi/policy) are not installed, as npm leaves them.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as report from "./report";
import { installedRequire, root } from "./steps";

/** Issue 54's goal: the package adds at most this to a project that has @pulumi/pulumi. */
const GOAL_BYTES = 12e6;

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

interface Size {
    /** The files' bytes. */
    files: number;
    /** What they take on disk, as `du` counts it (whole blocks: most of npm's files are small). */
    disk: number;
}

/** The size of every file under `dir` (symbolic links not followed). */
function sizeOf(dir: string, sum: Size = { files: 0, disk: 0 }): Size {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) sizeOf(p, sum);
        else if (e.isFile()) {
            const stat = fs.statSync(p);
            sum.files += stat.size;
            sum.disk += stat.blocks * 512;
        }
    }
    return sum;
}

/** node_modules' size of a new project in `dir` after `npm install` of `specs`. */
function installed(dir: string, specs: string[]): Size {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "p", version: "0.0.0", private: true }));
    execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", ...specs], {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 300_000,
    });
    return sizeOf(path.join(dir, "node_modules"));
}

export function measureInstallSize(
    dir: string,
    log: (msg: string) => void,
    met: (ok: boolean) => string,
): { rows: report.Row[]; setup: string[] } {
    const sdk = (installedRequire("@pulumi/pulumi/package.json") as { version: string }).version;
    const scratch = path.join(dir, "install-size");
    fs.rmSync(scratch, { recursive: true, force: true });
    fs.mkdirSync(scratch, { recursive: true });
    log(`install size: npm install of @pulumi/pulumi@${sdk} alone, then with the package's tarball`);
    const [{ filename }] = JSON.parse(
        execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", scratch], {
            cwd: root,
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"],
        }),
    ) as Array<{ filename: string }>;
    const alone = installed(path.join(scratch, "alone"), [`@pulumi/pulumi@${sdk}`]);
    const both = installed(path.join(scratch, "with-package"), [`@pulumi/pulumi@${sdk}`, path.join(scratch, filename)]);
    // On disk, as the figures (`du`) were taken.
    const added = both.disk - alone.disk;
    return {
        rows: [
            {
                n: "8",
                figure: `what \`npm install pulumi-chatbot\` adds to a project with @pulumi/pulumi ${sdk}`,
                value: `${mb(added)} on disk, ${mb(both.files - alone.files)} of files (node_modules ${mb(both.disk)}, ${mb(both.files)})`,
                reference: `@pulumi/pulumi alone: node_modules ${mb(alone.disk)} on disk, ${mb(alone.files)} of files`,
                goal: `≤ ${mb(GOAL_BYTES)}`,
                met: met(added <= GOAL_BYTES),
            },
        ],
        setup: [
            `Install size (8): node_modules of a new project after \`npm install @pulumi/pulumi@${sdk}\`, and of another after the same with the package's \`npm pack\` tarball, from the npm registry (npm's cache where it can); the sum of the files' sizes, and the disk they take as \`du\` counts it (whole blocks), in MB (10^6 bytes). The optional peers (pg, @aws-sdk/client-s3, @pulumi/policy) are not installed, as npm leaves them.`,
        ],
    };
}
