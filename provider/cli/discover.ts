/**
 * `pulumi-chatbot discover`: lists every v2 connection and legacy webhook of a ChatBot account,
 * leaves out those a given stack manages, reads the rest in full and writes a program that adopts
 * them. See docs/discover.md. With --all-stacks, every stack of the backend the pulumi CLI is
 * logged in to counts (a folder, PostgreSQL, S3, Pulumi Cloud), read through the CLI.
 *
 * Secrets: the ChatBot token comes from the environment only (never a flag: flags show in the
 * process list). Connection secrets go to the --with-secrets file alone, never to stdout, stderr
 * or the program; API errors are redacted by the client.
 */
import * as fs from "fs";
import * as path from "path";
import { parseArgs } from "util";
import { ChatbotClient } from "../client/client";
import { envVars } from "../config";
import { apiFailure, commandClient } from "./apiClient";
import { listAccount, readOne } from "../resources/lookup";
import { resources } from "../resources/registry";
import {
    ConvertUnchecked,
    PROJECT_LANGUAGES,
    refuseNonEmpty,
    WouldReplace,
    writeProject,
    type ProjectLanguage,
} from "./convert";
import { generateProgram, importFile, secretCommands, Unwritable, type Found, type Generated } from "./generate";
import { printable, printableJson, secretsOfUrl, shown } from "../client/redact";
import { checkedRun, idsOfStacks, PulumiFailed, type PulumiRun } from "./pulumiCli";
import { managedResources, StackExportError } from "./stackExport";

export interface Io {
    stdout(text: string): void;
    stderr(text: string): void;
    env: NodeJS.ProcessEnv;
    /** The whole of standard input, for `--stack-export -`. */
    readStdin(): string;
    /** Runs `pulumi`, for `--all-stacks`. */
    pulumi: PulumiRun;
}

/** Exit codes: 0 done; 1 `--check` found unmanaged connections; 2 the command failed. */
export const EXIT = { ok: 0, unmanaged: 1, failed: 2 } as const;

export const DISCOVER_USAGE = `Usage: pulumi-chatbot discover [options]

Lists every webhook connection and legacy webhook of a ChatBot account, leaves out those a stack
manages, and writes a Pulumi program that adopts the rest (adoptId, protect: true), in
TypeScript, JavaScript, Python, Go, Java or YAML. Secret values are read from stack config.

The developer access token is read from ${envVars.token}; the API address from ${envVars.apiUrl}
or --api-url (default https://api.chatbot.com).

Options:
  --api-url URL            the ChatBot API address
  --stack-export FILE|-    output of \`pulumi stack export\` (- for stdin); its connections are
                           managed and left out. May be repeated.
  --all-stacks             every stack of the backend \`pulumi\` is logged in to (read with
                           \`pulumi stack ls --all\` and \`pulumi stack export\`; the pulumi on
                           PATH, with this environment) is read, and its connections left out
  --out FILE|DIR           write the program to FILE (default: standard output); for python,
                           go, java and yaml, the project folder DIR (required)
  --language LANG          typescript (default), javascript, yaml, python, go or java. Python,
                           Go and Java are written in PCL and converted by \`pulumi convert
                           --from pcl --language LANG --generate-only\` (the pulumi on PATH and
                           its host of that language); all four declare the native plugin's
                           resources
  --native                 declare the native plugin's classes (pulumi-chatbot/native, types
                           chatbot:index:<Type>) instead of the dynamic provider's
  --import-file FILE       with --native or a project-folder language: also write the file
                           \`pulumi import --file FILE\` reads
  --with-secrets FILE      write the \`pulumi config set --secret\` commands with their values to
                           FILE (created with mode 0600). Without it no secret value is written.
  --force                  write over existing files: the --out file or a project folder that is
                           not empty, --with-secrets and --import-file files (without it, discover
                           refuses them and writes nothing); says which files it replaced
  --json                   print a machine-readable summary on standard output (the program is
                           then written only with --out)
  --check                  exit 1 when any connection is unmanaged, 0 otherwise
  -h, --help               show this help

Exit codes: 0 done, 1 unmanaged connections found with --check, 2 failed.
`;

/** A refusal or failure of the command: its message is printed, and it exits 2. */
class DiscoverFailed extends Error {}

const OPTIONS = {
    "api-url": { type: "string" },
    "stack-export": { type: "string", multiple: true },
    "all-stacks": { type: "boolean" },
    out: { type: "string" },
    language: { type: "string" },
    native: { type: "boolean" },
    "import-file": { type: "string" },
    "with-secrets": { type: "string" },
    json: { type: "boolean" },
    check: { type: "boolean" },
    force: { type: "boolean" },
    help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>["values"];

/** What the options ask for, once they are known to go together. */
interface Wanted {
    values: Values;
    /** `typescript` or `javascript`, when the program is one file. */
    language: string;
    /** python, go, java, yaml: the program is a project folder. */
    inFolder: ProjectLanguage | undefined;
    native: boolean;
}

export async function discover(argv: string[], io: Io): Promise<number> {
    const fail = (message: string) => {
        io.stderr(`pulumi-chatbot discover: ${message}\n`);
        return EXIT.failed;
    };
    let values: Values;
    try {
        ({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: OPTIONS }));
    } catch (e) {
        return fail(`${e instanceof Error ? e.message : String(e)}\n\n${DISCOVER_USAGE}`);
    }
    if (values.help) {
        io.stdout(DISCOVER_USAGE);
        return EXIT.ok;
    }
    let client: ChatbotClient | undefined;
    try {
        const wanted = checkOptions(values);
        // The stacks' exports first: a bad file fails before any request.
        const managed = managedInExports(values["stack-export"] ?? [], io);
        if (values["all-stacks"]) await addManagedOfAllStacks(managed, io);
        const made = commandClient(io.env, values["api-url"]);
        if (!(made instanceof ChatbotClient)) throw new DiscoverFailed(made.error);
        client = made;
        const found = await readInFull(client, await unmanaged(client, managed, io), io);
        await writeWhatWasFound(wanted, client, found, managed, io);
        return values.check && found.length > 0 ? EXIT.unmanaged : EXIT.ok;
    } catch (e) {
        return fail(failureMessage(e, client));
    }
}

/** The options that go together, or a DiscoverFailed saying which do not. */
function checkOptions(values: Values): Wanted {
    const language = values.language ?? "typescript";
    const inFolder = (PROJECT_LANGUAGES as readonly string[]).includes(language)
        ? (language as ProjectLanguage)
        : undefined;
    if (language !== "typescript" && language !== "javascript" && !inFolder) {
        throw new DiscoverFailed(
            `--language must be typescript, javascript, ${PROJECT_LANGUAGES.join(", ")}, not ${JSON.stringify(values.language)}.`,
        );
    }
    // Every language but TypeScript and JavaScript declares the native plugin's resources.
    const native = values.native || inFolder !== undefined;
    if (values["import-file"] !== undefined && !native) {
        throw new DiscoverFailed(
            "--import-file needs --native: `pulumi import` cannot adopt a dynamic resource (the plugin is asked to read with the id alone).",
        );
    }
    if (inFolder && values.out === undefined) {
        throw new DiscoverFailed(`--language ${inFolder} needs --out DIR: the program is a project folder.`);
    }
    const exportFiles = values["stack-export"] ?? [];
    if (exportFiles.filter((f) => f === "-").length > 1) {
        throw new DiscoverFailed("--stack-export - (stdin) can be given once.");
    }
    refuseOverwrites(values, inFolder !== undefined);
    return { values, language, inFolder, native };
}

/** Before any request: discover writes no file over one it did not write, unless --force. */
function refuseOverwrites(values: Values, inFolder: boolean): void {
    if (values.force) return;
    if (inFolder) refuseNonEmpty(path.resolve(values.out as string), false);
    const files = [
        inFolder ? undefined : ["--out", values.out],
        ["--with-secrets", values["with-secrets"]],
        ["--import-file", values["import-file"]],
    ];
    for (const [flag, file] of files.filter((f): f is string[] => f?.[1] !== undefined)) {
        if (fs.existsSync(file)) {
            throw new DiscoverFailed(`${flag} ${printable(file)} exists: give --force to write over it.`);
        }
    }
}

/** The ids the given stack exports manage. */
function managedInExports(exportFiles: string[], io: Io): Set<string> {
    const managed = new Set<string>();
    for (const file of exportFiles) {
        const source = file === "-" ? "standard input (--stack-export -)" : file;
        let text: string;
        try {
            text = file === "-" ? io.readStdin() : fs.readFileSync(file, "utf8");
        } catch (e) {
            const code = (e as NodeJS.ErrnoException).code ?? String(e);
            throw new DiscoverFailed(`cannot read the stack export ${source}: ${code}.`);
        }
        for (const r of managedResources(text, source)) managed.add(r.id);
    }
    return managed;
}

/** `--all-stacks`: the ids every stack of the backend manages, read through the pulumi CLI. */
async function addManagedOfAllStacks(managed: Set<string>, io: Io): Promise<void> {
    const read = checkedRun(io.pulumi, secretsOfUrl(io.env.PULUMI_BACKEND_URL ?? ""));
    for (const id of await idsOfStacks(read, io.env)) managed.add(id);
}

/** Every resource of the account no given stack manages, from the list reads; says how many. */
async function unmanaged(client: ChatbotClient, managed: Set<string>, io: Io): Promise<Unmanaged[]> {
    const all = await listAccount(client);
    const todo = all.filter((x) => !managed.has(x.id));
    const counts = resources.map((spec) => plural(all.filter((x) => x.spec === spec).length, spec.noun)).join(" and ");
    io.stderr(
        `discover: ${counts} at ${client.apiUrl}; ` +
            `${all.length - todo.length} managed by the given stacks, ${todo.length} not.\n`,
    );
    return todo;
}

interface Unmanaged {
    spec: (typeof resources)[number];
    id: string;
    name: string;
}

/** Each one read in full (concurrent within the client's in-flight limit, each read with the
 *  client's retries); one deleted meanwhile is left out, saying so. */
async function readInFull(client: ChatbotClient, todo: Unmanaged[], io: Io): Promise<Found[]> {
    const progress = new Progress(todo.length, io, (done, total) => `discover: read ${done} of ${total}`);
    const read = await Promise.all(
        todo.map(async (x): Promise<Found | undefined> => {
            const label = `${shown(x.name)} (${shown(x.id)})`;
            const outputs = await readOne(client, x.spec, x.id, label);
            progress.tick();
            if (!outputs) {
                io.stderr(`discover: ${label} was deleted while being read; left out.\n`);
                return undefined;
            }
            return { kind: x.spec.type, id: x.id, outputs } as Found;
        }),
    );
    return read.filter((f): f is Found => f !== undefined);
}

/** The program (a file, standard output, or a project folder), the secrets' and import files,
 *  the `--json` summary, and what was written, on stderr. */
async function writeWhatWasFound(
    { values, language, inFolder, native }: Wanted,
    client: ChatbotClient,
    found: Found[],
    managed: Set<string>,
    io: Io,
): Promise<void> {
    const force = values.force === true;
    const replaced: string[] = [];
    let generated: Generated;
    if (inFolder) {
        const project = await writeProject(
            checkedRun(io.pulumi, []),
            found,
            client.apiUrl,
            inFolder,
            values.out as string,
            force,
        );
        replaced.push(...project.replaced.map((f) => path.join(values.out as string, f)));
        generated = project;
    } else {
        generated = generateProgram(
            found,
            language as "typescript" | "javascript",
            client.apiUrl,
            native ? "native" : "dynamic",
        );
    }
    const write = (file: string, text: string, mode?: number) => {
        if (fs.existsSync(file)) replaced.push(file);
        if (mode === undefined) fs.writeFileSync(file, text);
        else writePrivate(file, text);
    };
    // A project folder is written by now.
    if (!inFolder && values.out !== undefined) write(values.out, generated.program);
    else if (!inFolder && !values.json) io.stdout(generated.program);
    if (values["with-secrets"] !== undefined) write(values["with-secrets"], secretCommands(generated.secrets), 0o600);
    if (values["import-file"] !== undefined) write(values["import-file"], importFile(generated.declared));
    if (replaced.length > 0) io.stderr(`discover: --force: replaced ${replaced.map(printable).join(", ")}.\n`);
    if (values.json) {
        const summary = { apiUrl: client.apiUrl, managed: [...managed].sort(), unmanaged: generated.declared };
        io.stdout(printableJson(summary) + "\n");
    }
    if (values.out !== undefined) {
        io.stderr(`discover: wrote a program for ${found.length} to ${values.out}.\n`);
        // A converted program may not keep the header comment: the keys are said here too.
        if (inFolder && generated.secrets.length > 0) {
            io.stderr(
                `discover: set its secrets in its stack first:\n${generated.secrets.map((s) => `  pulumi config set --secret ${s.key} <value>\n`).join("")}`,
            );
        }
    }
    if (values["with-secrets"] !== undefined) {
        io.stderr(
            `discover: wrote ${generated.secrets.length} \`pulumi config set --secret\` command${generated.secrets.length === 1 ? "" : "s"} to ${values["with-secrets"]} (mode 0600).\n`,
        );
    }
}

/** What the command says of a failure (`client`: once there is one); anything else is a bug, thrown. */
function failureMessage(e: unknown, client: ChatbotClient | undefined): string {
    if (
        e instanceof DiscoverFailed ||
        e instanceof StackExportError ||
        e instanceof PulumiFailed ||
        e instanceof Unwritable ||
        e instanceof WouldReplace ||
        e instanceof ConvertUnchecked
    ) {
        return e.message;
    }
    const failure = client && apiFailure(e, client);
    if (failure !== undefined) return failure;
    const code = (e as NodeJS.ErrnoException)?.code;
    if (client && typeof code === "string") {
        return `cannot write: ${code} ${(e as NodeJS.ErrnoException).path ?? ""}`.trim();
    }
    throw e;
}

/** `1 webhook connection`, `3 legacy webhooks` */
function plural(n: number, noun: string): string {
    return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** Creates or truncates `file` readable by its owner alone, then writes it. */
function writePrivate(file: string, text: string): void {
    const fd = fs.openSync(file, "w", 0o600);
    try {
        // The mode above applies only when the file is new.
        fs.fchmodSync(fd, 0o600);
        fs.writeSync(fd, text);
    } finally {
        fs.closeSync(fd);
    }
}

/** A line on stderr at each quarter of a run of `total` steps, when there are at least `from`. */
export class Progress {
    private done = 0;
    private shown = 0;

    constructor(
        private readonly total: number,
        private readonly io: Pick<Io, "stderr">,
        private readonly line: (done: number, total: number) => string,
        // Short runs finish before anyone looks.
        private readonly from = 20,
    ) {}

    tick(): void {
        this.done++;
        if (this.total < this.from) return;
        const quarter = Math.floor((this.done * 4) / this.total);
        if (quarter > this.shown) {
            this.shown = quarter;
            this.io.stderr(`${this.line(this.done, this.total)}\n`);
        }
    }
}
