/**
 * docs/architecture.md's repository layout names every file of `provider/` (the package), and
 * nothing that is not there: a newcomer finds each file's part in one place, and a file added or
 * moved without a line there fails here.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { root } from "../helpers/support";

/** The files under `provider/` the layout block names, from its indented tree. */
function namedInLayout(markdown: string): string[] {
    const section = markdown.slice(markdown.indexOf("## Repository layout"));
    const block = /^```\n([\s\S]*?)^```$/m.exec(section)?.[1];
    assert.ok(block, "docs/architecture.md has a layout block under '## Repository layout'");
    const files: string[] = [];
    /** The folders above the current line, by depth (two spaces a level). */
    const folders: string[] = [];
    let inProvider = false;
    for (const line of block.split("\n")) {
        const entry = /^( *)(\S+)/.exec(line);
        if (!entry) continue;
        const depth = entry[1].length / 2;
        const name = entry[2];
        if (depth === 0) {
            inProvider = name === "provider/";
            folders.splice(0, folders.length, "provider");
            continue;
        }
        // A description wrapped onto the next line is indented past any entry: not a name.
        if (!inProvider || !Number.isInteger(depth) || depth > folders.length) continue;
        folders.length = depth;
        if (name.endsWith("/")) folders.push(name.slice(0, -1));
        else files.push([...folders, name].join("/"));
    }
    return files;
}

/** Every file of `provider/`, relative to the repository, with `/`. */
function providerFiles(dir = "provider"): string[] {
    return fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? providerFiles(`${dir}/${e.name}`) : [`${dir}/${e.name}`]))
        .sort();
}

describe("docs/architecture.md's layout", () => {
    const named = namedInLayout(fs.readFileSync(path.join(root, "docs", "architecture.md"), "utf8"));

    it("names every file of provider/", () => {
        const missing = providerFiles().filter((f) => !named.includes(f));
        assert.deepEqual(missing, [], `the layout does not name: ${missing.join(", ")}`);
    });

    it("names no file that provider/ does not have", () => {
        const files = providerFiles();
        const stale = named.filter((f) => !files.includes(f));
        assert.ok(named.length > 0, "the layout names files of provider/");
        assert.deepEqual(stale, [], `the layout names files that do not exist: ${stale.join(", ")}`);
    });
});
