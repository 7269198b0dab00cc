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
import type { CheckedRun } from "./pulumiCli";

/** The languages whose program is a project folder: YAML written here, the others by `pulumi convert`. */
export const PROJECT_LANGUAGES = ["python", "go", "java", "yaml"] as const;
export type ProjectLanguage = (typeof PROJECT_LANGUAGES)[number];

/** The installed package's plugin folder (pulumi-resource-chatbot): the converter reads the
 *  schema from it, through the PCL folder's project (`plugins.providers`). */
const PLUGIN_DIR = path.join(__dirname, "..", "..", "plugin");

/**
 * Writes the project of `found` in `language` into the folder `out`, named after that folder.
 * The program holds no secret value (they are config keys), so its temporary folder may be
 * anywhere.
 */
export async function writeProject(
    read: CheckedRun,
    found: Found[],
    apiUrl: string,
    language: ProjectLanguage,
    out: string,
): Promise<Generated> {
    const target = path.resolve(out);
    const name = resourceNameFrom(path.basename(target)) || "chatbot-account";
    if (language === "yaml") {
        const generated = generateProgram(found, "yaml", apiUrl);
        fs.mkdirSync(target, { recursive: true });
        fs.writeFileSync(path.join(target, "Pulumi.yaml"), `name: ${name}\nruntime: yaml\n${generated.program}`);
        return generated;
    }
    const generated = generateProgram(found, "pcl", apiUrl);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chatbot-discover-pcl-"));
    try {
        fs.writeFileSync(
            path.join(dir, "Pulumi.yaml"),
            `name: ${name}\nruntime: ${language}\nplugins:\n  providers:\n    - name: chatbot\n      path: ${JSON.stringify(PLUGIN_DIR)}\n`,
        );
        fs.writeFileSync(path.join(dir, "main.pp"), generated.program);
        await read(
            ["convert", "--cwd", dir, "--from", "pcl", "--language", language, "--out", target, "--generate-only"],
            `convert --from pcl --language ${language}`,
        );
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
    withoutPlugins(path.join(target, "Pulumi.yaml"));
    return generated;
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
