/**
 * A folder as a state backend (`file://`, `pulumi login --local`): a StateBackend of
 * index.ts, read with the file system.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stackFolders, type StateBackend } from "./index";

export function open(url: string, cwd: string): StateBackend {
    const rest = url.slice("file://".length).split("?")[0];
    const root = rest.startsWith("~") ? path.join(os.homedir(), rest.slice(1)) : path.resolve(cwd, rest);
    return {
        async list(prefix) {
            const dir = path.join(root, ...prefix.split("/"));
            if (!fs.existsSync(dir)) return [];
            return fs
                .readdirSync(dir, { recursive: true, withFileTypes: true })
                .filter((e) => e.isFile())
                .map((e) => prefix + path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"));
        },
        async read(key) {
            return fs.readFileSync(path.join(root, ...key.split("/")), "utf8");
        },
        async repairMetadata(project, stack) {
            return repairSidecars(root, project, stack);
        },
        async close() {},
    };
}

/**
 * Removes the stack's metadata files (`<checkpoint>.attrs`) that a kill left empty or cut short,
 * and says which. A file backend writes each file through gocloud.dev's fileblob, which writes the
 * data to a temporary file and renames it (atomic), but truncates and rewrites the `.attrs`
 * sidecar in place first (fileblob's setAttrs): a kill there leaves it empty, and every command
 * then fails with "failed to load checkpoint: EOF" (seen here). A missing sidecar is read as
 * none (fileblob's getAttrs), so removing a broken one loses nothing. PostgreSQL and S3 keep no
 * such file: a row or an object is written whole, with its attributes.
 */
function repairSidecars(root: string, project: string, stack: string): string[] {
    const { name, checkpoints } = stackFolders(project, stack);
    const removed: string[] = [];
    for (const dir of checkpoints.map((folder) => path.join(root, ...folder.split("/")))) {
        if (!fs.existsSync(dir)) continue;
        for (const file of fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.json`) && f.endsWith(".attrs"))) {
            const at = path.join(dir, file);
            try {
                JSON.parse(fs.readFileSync(at, "utf8"));
            } catch {
                fs.rmSync(at, { force: true });
                removed.push(file);
            }
        }
    }
    return removed;
}
