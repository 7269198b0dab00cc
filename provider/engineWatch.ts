/**
 * Ends a provider plugin when the pulumi engine that started it is gone (its CLI killed, say), so
 * that no write of a run nobody is waiting for goes on, or is retried, after the run: otherwise
 * ChatBot could change after `pulumi up` or `destroy` was killed, and the process would stay.
 *
 * The engine starts a plugin (pkg/resource/plugin/plugin.go, ExecPlugin) as its child, with a pipe
 * on its stdin that only the engine holds. So the engine is gone when that stdin ends, or when
 * this process is re-parented (`process.ppid` changes). Stdin is the one that always tells:
 * Pulumi's own script for the dynamic-provider plugin (sdk/nodejs/dist/pulumi-resource-pulumi-nodejs)
 * runs node under a shell without `exec`, so the shell, not the engine, is node's parent there.
 * Pulumi's own plugins notice by a gRPC health check (sdk/go/common/util/rpcutil/health.go) every
 * 5 minutes (sdk/go/pulumi/provider/main.go): too late for writes that retry for up to a minute.
 *
 * Only plugin processes are watched: the SDK's dynamic-provider plugin, and the native plugin
 * (native/start.js, or the release's single executable of it). Anything else that loads the
 * provider (mocha calling it in-process, a program, the `pulumi-chatbot` CLI) is left alone.
 */
import * as diagnosticsChannel from "diagnostics_channel";
import * as fs from "fs";
import * as path from "path";
import * as sea from "node:sea";

const POLL_MS = 500;
/** The exit code when the engine is gone: nobody reads it, but it is not a success. */
const ENGINE_GONE_EXIT_CODE = 1;

let watching = false;

/** Exits this process as soon as the engine that started it is gone (see above); once per process. */
export function exitWhenEngineGone(): void {
    if (watching || !isPlugin()) return;
    watching = true;
    const parent = process.ppid;
    let stdinEnded = false;
    const gone = () => stdinEnded || process.ppid !== parent;
    const exitIfGone = () => {
        if (gone()) process.exit(ENGINE_GONE_EXIT_CODE);
    };

    const poll = setInterval(exitIfGone, POLL_MS);
    poll.unref();

    if (stdinIsPipe()) {
        const stdin = process.stdin;
        const ended = () => {
            stdinEnded = true;
            exitIfGone();
        };
        stdin.on("end", ended);
        stdin.on("error", ended);
        stdin.resume(); // nothing is sent on it: read only to see it end
        (stdin as { unref?(): void }).unref?.(); // the watch never keeps the process alive
    }

    // Checked again before every HTTP request undici makes (its `undici:request:create`
    // diagnostics channel), so a retry or read-back due between two polls is not sent either.
    diagnosticsChannel.subscribe("undici:request:create", exitIfGone);
}

/** Whether this process is a plugin the engine starts with this package's code in it. */
function isPlugin(): boolean {
    const main = require.main?.filename ?? "";
    // In a single executable, the main script's name is the executable's: only the native plugin
    // is released as one.
    return (
        sea.isSea() ||
        /[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]dynamic-provider[\\/]index\.js$/.test(main) ||
        main === path.join(__dirname, "native", "start.js")
    );
}

/** A pipe (or socket) on stdin, as the engine gives a plugin; not a terminal, a file or /dev/null. */
function stdinIsPipe(): boolean {
    try {
        const stat = fs.fstatSync(0);
        return stat.isFIFO() || stat.isSocket();
    } catch {
        return false;
    }
}
