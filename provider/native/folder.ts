/**
 * Where `pulumi-resource-chatbot` is, as a project's `plugins.providers` names a plugin: the folder
 * holding it.
 */
import * as path from "path";
import * as sea from "node:sea";

/** The release's single executable's own folder when this code runs inside it (the plugin's
 *  command line, started by `pulumi plugin run`), else the npm package's plugin/ folder, whose
 *  script runs dist/ with node. */
export function pluginFolder(): string {
    return sea.isSea() ? path.dirname(process.execPath) : path.join(__dirname, "..", "..", "plugin");
}
