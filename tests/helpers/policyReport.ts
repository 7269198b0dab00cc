/**
 * The shipped policy pack on a preview of any language's program, and what the CLI prints of it,
 * read back (as tests/cli/policy.test.ts reads it). Test tooling: not published.
 */
import * as path from "path";
import { root } from "./support";

/** The installed package's policy pack, by absolute path: a project outside this checkout names
 *  it so (`--policy-pack`). */
export const POLICY_PACK = path.join(root, "node_modules", "pulumi-chatbot", "policy-pack");

/** The folder of the Node.js running the tests: a pack of `runtime: nodejs` needs `node` on PATH,
 *  which a program of another language's PATH lacks. */
export const NODE_DIR = path.dirname(process.execPath);

/** The violations a run printed, per pack: `<level> <rule> <resource name>`, and the text under
 *  it (the rule's description and the message). */
export function policyViolations(output: string): Map<string, Map<string, string>> {
    const packs = new Map<string, Map<string, string>>();
    let pack: Map<string, string> | undefined;
    let key: string | undefined;
    for (const line of output.split("\n")) {
        const header = /^\s+\S+\s+([\w-]+)@v[\d.]+ \(local: /.exec(line);
        const found = /^\s+- \[(\w+)\]\s+([\w-]+)\s+\(([^:]+:[^:]+:[^:]+): ([\w-]+)\)/.exec(line);
        if (header) {
            packs.set(header[1], (pack = new Map()));
            key = undefined;
        } else if (found && pack) {
            key = `${found[1]} ${found[2]} ${found[4]}`;
            pack.set(key, "");
        } else if (key && pack && /^\s{6,}\S/.test(line)) {
            pack.set(key, `${pack.get(key)} ${line.trim()}`.trim());
        } else key = undefined;
    }
    return packs;
}
