/**
 * How `pulumi-chatbot probe` sends its requests: through undici, on Agents of its own. The checked
 * Agent resolves a host name itself, refuses when any address the name resolves to is one ChatBot
 * could not call (./addresses.ts), and hands the socket exactly the addresses it checked: a name
 * that resolves elsewhere between the check and the connection (DNS rebinding) cannot slip
 * through, and a refused address is never connected to. Requests that may go anywhere (the url
 * given on the command line, or all with --allow-private) use another Agent, so a connection to an
 * allowed private address is never reused by a request that is checked.
 *
 * Node only (dns, net, undici), which is why the kit's probe takes it as its `send` rather than
 * importing it: the kit runs on web runtimes too.
 */
import { promises as dns, type LookupAddress } from "dns";
import type { LookupFunction } from "net";
import type { Agent, buildConnector } from "undici";
import { ProbeRefused, type ProbeAnswer, type ProbeSend } from "../webhook/probe";
import { unreachableKind } from "./addresses";

/** A connection refused: the host, the address it is or resolves to, and what that address is. */
export class AddressRefused extends ProbeRefused {
    /** "127.0.0.1 is a loopback address", "localhost resolves to ::1, a loopback address" */
    readonly what: string;

    constructor(host: string, address: string, kind: string) {
        const what = `${host === address ? `${host} is` : `${host} resolves to ${address},`} ${kind}`;
        super(
            `${what}, which ChatBot cannot reach from the internet (for a backend in local development: --allow-private)`,
        );
        this.what = what;
    }
}

/** Which requests are checked: all of them (the account's urls), all but the url given (its
 *  redirects), or none (--allow-private). */
export type Checked = "all" | "redirects" | "none";

/** A `ProbeSend` checking what `checked` says, and the end of its connections once the run is done. */
export function probeSender(checked: Checked): { send: ProbeSend; close(): Promise<void> } {
    const undici = require("undici") as typeof import("undici");
    const agents: { checked?: Agent; open?: Agent } = {};
    const send: ProbeSend = (url, init, redirected) => {
        const check = checked === "all" || (checked === "redirects" && redirected);
        const dispatcher = check
            ? (agents.checked ??= new undici.Agent({ connect: checkedConnect }))
            : (agents.open ??= new undici.Agent());
        // undici's own fetch, as its Agents belong to it; its RequestInit and Response are the web's.
        return undici.fetch(url, { ...(init as object), dispatcher }) as Promise<ProbeAnswer>;
    };
    const close = async () => {
        await Promise.all(Object.values(agents).map((a) => a.destroy().catch(() => undefined)));
    };
    return { send, close };
}

/** Every address `host` resolves to (an address: itself), each checked; throws AddressRefused. */
export async function checkedAddresses(host: string): Promise<LookupAddress[]> {
    const bare = host.replace(/^\[(.*)\]$/, "$1"); // a URL's hostname keeps an IPv6 address's brackets
    const addresses = await dns.lookup(bare, { all: true });
    for (const { address } of addresses) {
        const kind = unreachableKind(address);
        if (kind !== undefined) throw new AddressRefused(bare, address, kind);
    }
    return addresses;
}

/** undici's connector, after the check, with a lookup that answers only the addresses checked. */
function checkedConnect(options: buildConnector.Options, callback: buildConnector.Callback): void {
    const { buildConnector } = require("undici") as typeof import("undici");
    checkedAddresses(options.hostname).then(
        (addresses) => buildConnector({ lookup: answering(addresses) })(options, callback),
        (error: Error) => callback(error, null),
    );
}

/** A `lookup` for net.connect that answers `addresses` and never asks the resolver again. */
function answering(addresses: LookupAddress[]): LookupFunction {
    return (_host, options, callback) => {
        const fitting = addresses.filter((a) => !options.family || a.family === options.family);
        if (fitting.length === 0) {
            const error: NodeJS.ErrnoException = new Error(`no IPv${options.family} address was checked`);
            error.code = "ENOTFOUND";
            return callback(error, "", 0);
        }
        // With autoSelectFamily, net asks for all of them and tries each in turn.
        if (options.all) return (callback as (e: null, all: LookupAddress[]) => void)(null, fitting);
        callback(null, fitting[0].address, fitting[0].family);
    };
}
