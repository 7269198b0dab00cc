/**
 * The release is reproducible: `npm run release` twice from the same commit gives the same
 * SHA256SUMS (docs/releasing.md). The second build is a second build of every artifact (each
 * platform's plugin, the Maven repository, the wheel, the Go module folder), so it is a tier of its
 * own (`npm run test:reproducible`, weekly in .github/workflows/kill.yml) rather than part of
 * npm test, where each artifact is built once and tests/cli/release.test.ts proves what users get.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { buildRelease, releaseSeconds, runRelease } from "../helpers/release";

describe("a release built twice from the same commit", function () {
    // Two builds of 20 min at most each (scripts/release.js's own limit on a loaded machine).
    this.timeout(2_700_000);
    let scratch: string | undefined;
    after(() => {
        if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    });

    it("gives the same SHA256SUMS, from folders of their own", () => {
        const first = runRelease();
        if (releaseSeconds !== undefined) process.stderr.write(`    npm run release: ${releaseSeconds.toFixed(0)} s\n`);
        scratch = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-release-again-"));
        const second = buildRelease(path.join(scratch, "again"));
        process.stderr.write(`    npm run release, again: ${second.seconds.toFixed(0)} s\n`);
        assert.notEqual(path.resolve(second.dir), path.resolve(first), "a second folder, not the first one again");
        const sums = fs.readFileSync(path.join(first, "SHA256SUMS"), "utf8");
        assert.ok(sums.split("\n").filter(Boolean).length > 5, `SHA256SUMS lists every artifact:\n${sums}`);
        assert.equal(fs.readFileSync(path.join(second.dir, "SHA256SUMS"), "utf8"), sums);
    });
});
