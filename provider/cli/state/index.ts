/**
 * What `recover` reads of a state backend: the locks of a stack, and the metadata files a kill can
 * leave broken. One small interface, one file per kind of backend in this folder (file.ts,
 * postgres.ts, s3.ts); a new kind is one more file and one more line in open.ts. The layout they
 * share is written here once (keyPrefix, stackFolders). No code here reads or changes
 * process.env: each backend is handed the environment it uses (the PostgreSQL and AWS clients'
 * own defaults still come from the process's).
 *
 * Pulumi's DIY backends (pkg/backend/diy, v3.274.1) keep the same layout on each: every "file" is
 * an object keyed by its path under the URL's path (a bucket's folder, a PostgreSQL database's
 * name), and a run's lock is `.pulumi/locks/<stack's qualified name>/<lock id>.json` holding
 * `{pid, username, hostname, timestamp}` (lock.go). Pulumi Cloud and the other blob stores (Azure,
 * Google Cloud Storage) are not read here: their locks cannot be told dead or alive.
 */
import * as fs from "fs";
import * as os from "os";

export interface StateBackend {
    /** The keys (relative to the backend's root, `/`-separated) of the objects under `prefix`. */
    list(prefix: string): Promise<string[]>;
    /** The content of the object `key`. */
    read(key: string): Promise<string>;
    /** Removes the metadata files of the stack's state that a kill left unreadable, and names
     *  them. Only a folder has such files; elsewhere there is nothing to repair. */
    repairMetadata(project: string, stack: string): Promise<string[]>;
    close(): Promise<void>;
}

/** A lock a pulumi run took, as it wrote it, and what can be told of that run from here. */
export interface Lock {
    pid: number;
    /** `user@host` */
    owner: string;
    startedAt: string;
    /** Taken on this machine. */
    here: boolean;
    /** Taken on this machine by a process that is no more. */
    gone: boolean;
}

/**
 * Where a stack's objects are, relative to the backend's root: its lock folders and the folders
 * its checkpoint may be in, project-scoped stacks first, then the legacy layout of a backend made
 * before projects scoped stacks (pkg/backend/diy: `.pulumi/stacks/<project>/<stack>.json`,
 * `.pulumi/locks/organization/<project>/<stack>/`; legacy `.pulumi/stacks/<stack>.json`,
 * `.pulumi/locks/<stack>/`).
 */
export function stackFolders(project: string, stack: string): { name: string; locks: string[]; checkpoints: string[] } {
    const name = stack.split("/").pop() ?? stack;
    return {
        name,
        locks: [`.pulumi/locks/organization/${project}/${name}/`, `.pulumi/locks/${name}/`],
        checkpoints: [`.pulumi/stacks/${project}/`, ".pulumi/stacks/"],
    };
}

/** The prefix of every key: the URL's path (a bucket's folder, a PostgreSQL database's name),
 *  as Pulumi prefixes its bucket (diy/backend.go: `blob.PrefixedBucket`). */
export function keyPrefix(url: URL): string {
    const folder = decodeURIComponent(url.pathname.replace(/^\/+/, ""));
    return folder === "" || folder.endsWith("/") ? folder : `${folder}/`;
}

/** The locks held on the stack (a killed run leaves its own; two runs at once leave two). */
export async function readLocks(backend: StateBackend, project: string, stack: string): Promise<Lock[]> {
    const locks: Lock[] = [];
    for (const dir of stackFolders(project, stack).locks) {
        // A lock is directly in the stack's folder: deeper keys belong to a stack whose name goes on.
        const keys = (await backend.list(dir)).filter((k) => k.endsWith(".json") && !k.slice(dir.length).includes("/"));
        for (const key of keys) {
            const content = JSON.parse(await backend.read(key)) as {
                pid: number;
                username: string;
                hostname: string;
                timestamp: string;
            };
            const here = content.hostname === os.hostname();
            locks.push({
                pid: content.pid,
                owner: `${content.username}@${content.hostname}`,
                startedAt: content.timestamp,
                here,
                gone: here && !processAlive(content.pid),
            });
        }
    }
    return locks;
}

/** Whether `pid` is a running process (not a zombie) of this machine. */
function processAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
    } catch (e) {
        return (e as NodeJS.ErrnoException).code === "EPERM";
    }
    try {
        return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
        return true;
    }
}
