/**
 * The shipped policy pack on a preview of a program in any language, as tests/cli/policy.test.ts
 * runs it (`pulumi preview --policy-pack <pack> --policy-pack-config <file>`), and what the CLI
 * prints of it. The pack judges `chatbot:index:*` resources by type, whatever language registered
 * them: the Python, Go and Java lifecycles add it to one preview of their walk, and policy.test.ts
 * reads its reports with the same parser. Test tooling: not published.
 */
import * as fs from "fs";
import * as path from "path";
import { root } from "./support";

/** The shipped pack, in the installed package, by absolute path: a project outside this checkout
 *  names it so (`--policy-pack`). */
export const POLICY_PACK = path.join(root, "node_modules", "pulumi-chatbot", "policy-pack");

/** The folder of the Node.js running the tests: a pack of `runtime: nodejs` needs `node` on PATH,
 *  which a program of another language's PATH lacks. */
export const NODE_DIR = path.dirname(process.execPath);

/**
 * The arguments that add the shipped pack to a preview, with allowed-hosts given `hosts` and made
 * advisory: a connection elsewhere is reported without failing the preview, so the preview keeps
 * the point it has in the walk (a config file written beside the project, in `folder`).
 */
export function policyPackArgs(folder: string, hosts: string[]): string[] {
    const file = path.join(folder, "policy-config.json");
    fs.writeFileSync(file, JSON.stringify({ "allowed-hosts": { enforcementLevel: "advisory", hosts } }));
    return ["--policy-pack", POLICY_PACK, "--policy-pack-config", file];
}

/** The violations a run printed, per pack: `<level> <rule> <resource name>`, and the text under it
 *  (the rule's description and the message). */
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
