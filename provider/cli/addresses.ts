/**
 * Which IP addresses ChatBot cannot call: it calls backends from the internet, so a loopback,
 * private, shared (carrier-grade NAT), link-local, cloud metadata, unspecified, multicast or
 * reserved address is out of its reach, while a probe run inside a team's network is not. The
 * probe command refuses such an address where ChatBot would never go (./probeSend.ts).
 *
 * Each IPv4 range is also matched in the IPv6 spellings that reach it: IPv4-mapped
 * (`::ffff:127.0.0.1`), NAT64's well-known prefix (`64:ff9b::127.0.0.1`) and the deprecated
 * IPv4-compatible form (`::127.0.0.1`). Numeric host forms (`0x7f.1`, `2130706433`, `127.1`) are
 * no concern here: WHATWG URL parsing turns them into the dotted address before any connection.
 */
import { BlockList, isIP } from "net";

/** A kind of address, and its ranges as `network/prefix`; the first kind that matches names it. */
const KINDS: Array<[kind: string, ranges: string[]]> = [
    ["the unspecified address", ["0.0.0.0/32", "::/128"]],
    ["a loopback address", ["127.0.0.0/8", "::1/128"]],
    // Named before the ranges that hold them: the address a credential thief asks for.
    ["a cloud metadata address", ["169.254.169.254/32", "fd00:ec2::254/128", "100.100.100.200/32"]],
    ["a 'this network' address (0.0.0.0/8)", ["0.0.0.0/8"]],
    ["a private address (RFC 1918)", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]],
    ["a shared address of carrier-grade NAT (100.64.0.0/10)", ["100.64.0.0/10"]],
    ["a link-local address", ["169.254.0.0/16", "fe80::/10"]],
    ["a unique local address (fc00::/7)", ["fc00::/7"]],
    ["a site-local address (fec0::/10, deprecated)", ["fec0::/10"]],
    ["a multicast address", ["224.0.0.0/4", "ff00::/8"]],
    ["a reserved address (240.0.0.0/4, broadcast included)", ["240.0.0.0/4"]],
];

/** The IPv6 prefixes an IPv4 address may be written under (each a /96). */
const IPV4_IN_IPV6 = ["::ffff:", "64:ff9b::", "::"];

const LISTS: Array<[string, BlockList]> = KINDS.map(([kind, ranges]) => {
    const list = new BlockList();
    for (const range of ranges) {
        const [network, bits] = range.split("/");
        if (isIP(network) === 6) {
            list.addSubnet(network, Number(bits), "ipv6");
            continue;
        }
        list.addSubnet(network, Number(bits), "ipv4");
        for (const prefix of IPV4_IN_IPV6) list.addSubnet(`${prefix}${network}`, 96 + Number(bits), "ipv6");
    }
    return [kind, list];
});

/**
 * What `address` is when ChatBot could not call it ("a loopback address"), or undefined for an
 * address on the internet. `address` is an IP address as the resolver gives it (an IPv6 zone,
 * `%eth0`, is ignored); anything else is named as not an address, so it is never taken for public.
 */
export function unreachableKind(address: string): string | undefined {
    const bare = address.replace(/%.*$/, "");
    const family = isIP(bare);
    if (family === 0) return "not an IP address";
    const type = family === 4 ? "ipv4" : "ipv6";
    return LISTS.find(([, list]) => list.check(bare, type))?.[0];
}
