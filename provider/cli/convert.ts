/**
 * `discover --language python|go|java|yaml`: a project folder. For Python, Go and Java the program
 * is written in PCL (Pulumi's own program language, generate.ts) and Pulumi's converter turns it
 * into the language's project: `pulumi convert --from pcl --language <lang> --generate-only`,
 * which asks that language's host (GenerateProject). YAML is written directly (generate.ts says
 * why).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { generateProgram, resourceNameFrom, type Found, type Generated } from "./generate";
import { printable } from "../client/redact";
import { pluginFolder } from "../native/folder";
import { literal } from "./literals";
import type { CheckedRun } from "./pulumiCli";

/** The languages whose program is a project folder: YAML written here, the others by `pulumi convert`. */
export const PROJECT_LANGUAGES = ["python", "go", "java", "yaml"] as const;
export type ProjectLanguage = (typeof PROJECT_LANGUAGES)[number];

/** The plugin's folder (pulumi-resource-chatbot: the installed package's, or the executable this
 *  runs in): the converter reads the schema from it, through the PCL folder's project
 *  (`plugins.providers`). */
const PLUGIN_DIR = pluginFolder();

/** A file the project would replace, and `--force` was not given. */
export class WouldReplace extends Error {}

/**
 * Writes the project of `found` in `language` into the folder `out`, named after that folder.
 * The program holds no secret value (they are config keys), so its temporary folders may be
 * anywhere. A folder that holds anything is refused unless `force`; then what was replaced is
 * returned.
 */
export async function writeProject(
    read: CheckedRun,
    found: Found[],
    apiUrl: string,
    language: ProjectLanguage,
    out: string,
    force: boolean,
): Promise<Generated & { replaced: string[] }> {
    const target = path.resolve(out);
    refuseNonEmpty(target, force);
    const name = resourceNameFrom(path.basename(target)) || "chatbot-account";
    const written = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-discover-out-"));
    try {
        let generated: Generated;
        if (language === "yaml") {
            generated = generateProgram(found, "yaml", apiUrl);
            fs.writeFileSync(path.join(written, "Pulumi.yaml"), `name: ${name}\nruntime: yaml\n${generated.program}`);
        } else {
            generated = generateProgram(found, "pcl", apiUrl);
            await convert(read, generated.program, name, language, written);
            putValues(written, generated.standIns, language);
            withoutPlugins(path.join(written, "Pulumi.yaml"));
        }
        return { ...generated, replaced: copyInto(written, target) };
    } finally {
        fs.rmSync(written, { recursive: true, force: true });
    }
}

/** `pulumi convert --from pcl` of `program` into the folder `into`. */
async function convert(
    read: CheckedRun,
    program: string,
    name: string,
    language: ProjectLanguage,
    into: string,
): Promise<void> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-discover-pcl-"));
    try {
        fs.writeFileSync(
            path.join(dir, "Pulumi.yaml"),
            `name: ${name}\nruntime: ${language}\nplugins:\n  providers:\n    - name: chatbot\n      path: ${JSON.stringify(PLUGIN_DIR)}\n`,
        );
        fs.writeFileSync(path.join(dir, "main.pp"), program);
        await read(
            ["convert", "--cwd", dir, "--from", "pcl", "--language", language, "--out", into, "--generate-only"],
            `convert --from pcl --language ${language}`,
        );
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

/**
 * Each account string in place of its stand-in, as the language's own literal (literals.ts): the
 * converter's quoting is not trusted. Checked after: every stand-in is found exactly once, as a
 * whole quoted literal, and nothing else of it is left; otherwise nothing is written.
 */
function putValues(dir: string, standIns: Map<string, string>, language: Exclude<ProjectLanguage, "yaml">): void {
    const seen = new Map<string, number>();
    const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) =>
        fs.statSync(path.join(dir, f)).isFile(),
    );
    for (const file of files) {
        const full = path.join(dir, file);
        const text = fs.readFileSync(full, "utf8");
        const put = text.replace(/(["'])(chatbotvalue[0-9a-f]{8}n\d+)\1/g, (whole, _q: string, key: string) => {
            const value = standIns.get(key);
            if (value === undefined) return whole;
            seen.set(key, (seen.get(key) ?? 0) + 1);
            return literal(language, value);
        });
        if (/chatbotvalue[0-9a-f]{8}n/.test(put)) {
            throw new ConvertUnchecked(`${file} holds a value where it is not a whole string literal`);
        }
        if (put !== text) fs.writeFileSync(full, put);
    }
    for (const key of standIns.keys()) {
        if (seen.get(key) !== 1) {
            throw new ConvertUnchecked(
                `a value appears ${seen.get(key) ?? 0} times in the converted program, not once`,
            );
        }
    }
}

/** `pulumi convert` wrote the program in a way the check after it cannot confirm. */
export class ConvertUnchecked extends Error {
    constructor(what: string) {
        super(`pulumi convert's program could not be checked (${what}); nothing was written.`);
    }
}

/** An existing folder that holds anything, without `force`. */
export function refuseNonEmpty(target: string, force: boolean): void {
    if (force || !fs.existsSync(target)) return;
    if (!fs.statSync(target).isDirectory()) {
        throw new WouldReplace(`--out ${printable(target)} is a file, not a project folder.`);
    }
    const present = fs.readdirSync(target);
    if (present.length > 0) {
        throw new WouldReplace(
            `--out ${printable(target)} is not empty (${present.slice(0, 5).map(printable).join(", ")}${present.length > 5 ? ", ..." : ""}): ` +
                "discover writes a new project into an empty folder; give --force to write over what is there.",
        );
    }
}

/** Copies the files of `from` into `to`; returns those it replaced. */
function copyInto(from: string, to: string): string[] {
    const replaced: string[] = [];
    for (const file of fs.readdirSync(from, { recursive: true }) as string[]) {
        const source = path.join(from, file);
        const dest = path.join(to, file);
        if (fs.statSync(source).isDirectory()) {
            fs.mkdirSync(dest, { recursive: true });
            continue;
        }
        if (fs.existsSync(dest)) replaced.push(file);
        fs.mkdirSync(path.dirname(dest), { recursive: true });
        fs.copyFileSync(source, dest);
    }
    return replaced.sort();
}

/**
 * The generated Pulumi.yaml without the `plugins` section it was given: that path is this
 * machine's copy of the plugin; the program's SDK names the plugin of its version, which the
 * engine installs as it does any provider's.
 */
function withoutPlugins(file: string): void {
    if (!fs.existsSync(file)) return;
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, text.replace(/^plugins:\n(?:[ \t-].*\n|\n)*/m, ""));
}
