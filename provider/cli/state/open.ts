/**
 * Which file of this folder reads the state backend of a URL. Each is loaded only for its own
 * backend, so the clients of PostgreSQL and S3 cost nothing to users of another.
 */
import type { StateBackend } from "./index";

/** The backend behind `url` (as `pulumi whoami` names it), or undefined where its locks cannot be
 *  read (Pulumi Cloud, Azure, Google Cloud Storage). */
export function openStateBackend(url: string, cwd: string, env: NodeJS.ProcessEnv): StateBackend | undefined {
    const scheme = /^([a-z0-9+.-]+):\/\//i.exec(url)?.[1]?.toLowerCase();
    if (scheme === "file") return (require("./file") as typeof import("./file")).open(url, cwd);
    if (scheme === "postgres") {
        return (require("./postgres") as typeof import("./postgres")).open(url, env);
    }
    if (scheme === "s3") return (require("./s3") as typeof import("./s3")).open(url, env);
    return undefined;
}
