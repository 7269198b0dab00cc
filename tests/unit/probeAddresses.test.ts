/**
 * The probe's classifier of addresses ChatBot cannot call (provider/cli/addresses.ts), as a
 * table: each range it names, its edges, the IPv6 spellings of an IPv4 address (mapped, NAT64,
 * compatible), and the numeric host forms a url may use, through the WHATWG URL parsing that
 * fetch applies before any connection. No network.
 */
import { strict as assert } from "assert";
import { unreachableKind } from "../../provider/cli/addresses";

const LOOPBACK = "a loopback address";
const PRIVATE = "a private address (RFC 1918)";
const CGNAT = "a shared address of carrier-grade NAT (100.64.0.0/10)";
const LINK_LOCAL = "a link-local address";
const METADATA = "a cloud metadata address";
const ULA = "a unique local address (fc00::/7)";
const UNSPECIFIED = "the unspecified address";

/** An address, and what it is; undefined: ChatBot could call it. */
const ADDRESSES: Array<[string, string | undefined]> = [
    ["127.0.0.1", LOOPBACK],
    ["127.255.255.254", LOOPBACK],
    ["::1", LOOPBACK],
    ["10.0.0.1", PRIVATE],
    ["172.16.0.1", PRIVATE],
    ["172.31.255.255", PRIVATE],
    ["172.32.0.1", undefined],
    ["192.168.1.1", PRIVATE],
    ["100.64.0.1", CGNAT],
    ["100.127.255.255", CGNAT],
    ["100.128.0.1", undefined],
    ["169.254.1.1", LINK_LOCAL],
    ["fe80::1", LINK_LOCAL],
    ["fe80::1%eth0", LINK_LOCAL],
    ["169.254.169.254", METADATA],
    ["fd00:ec2::254", METADATA],
    ["100.100.100.200", METADATA],
    ["fd12:3456::1", ULA],
    ["fc00::1", ULA],
    ["0.0.0.0", UNSPECIFIED],
    ["::", UNSPECIFIED],
    ["0.1.2.3", "a 'this network' address (0.0.0.0/8)"],
    ["224.0.0.1", "a multicast address"],
    ["ff02::1", "a multicast address"],
    ["255.255.255.255", "a reserved address (240.0.0.0/4, broadcast included)"],
    ["fec0::1", "a site-local address (fec0::/10, deprecated)"],
    // An IPv4 address written as IPv6: mapped, NAT64's well-known prefix, the old compatible form.
    ["::ffff:127.0.0.1", LOOPBACK],
    ["::ffff:7f00:1", LOOPBACK],
    ["0:0:0:0:0:ffff:7f00:1", LOOPBACK],
    ["::ffff:169.254.169.254", METADATA],
    ["::ffff:a9fe:a9fe", METADATA],
    ["::ffff:10.0.0.1", PRIVATE],
    ["::ffff:100.64.0.1", CGNAT],
    ["::ffff:0.0.0.0", UNSPECIFIED],
    ["64:ff9b::a9fe:a9fe", METADATA],
    ["64:ff9b::127.0.0.1", LOOPBACK],
    ["::127.0.0.1", LOOPBACK],
    // On the internet.
    ["8.8.8.8", undefined],
    ["1.1.1.1", undefined],
    ["::ffff:8.8.8.8", undefined],
    ["64:ff9b::8.8.8.8", undefined],
    ["2606:4700:4700::1111", undefined],
    // Not an address at all: never taken for a public one.
    ["example.com", "not an IP address"],
    ["", "not an IP address"],
];

/** A url's host as written, the address WHATWG URL parsing makes of it, and what that is. */
const HOSTS: Array<[string, string, string | undefined]> = [
    ["0x7f.1", "127.0.0.1", LOOPBACK],
    ["2130706433", "127.0.0.1", LOOPBACK],
    ["017700000001", "127.0.0.1", LOOPBACK],
    ["0177.0.0.1", "127.0.0.1", LOOPBACK],
    ["127.1", "127.0.0.1", LOOPBACK],
    ["%31%32%37.0.0.1", "127.0.0.1", LOOPBACK],
    ["0", "0.0.0.0", UNSPECIFIED],
    ["169.254.169.254.", "169.254.169.254", METADATA],
    ["0xa9fea9fe", "169.254.169.254", METADATA],
    ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", LOOPBACK],
    ["[0:0:0:0:0:ffff:a9fe:a9fe]", "[::ffff:a9fe:a9fe]", METADATA],
    ["[::]", "[::]", UNSPECIFIED],
    ["[fd00:ec2::254]", "[fd00:ec2::254]", METADATA],
];

describe("the probe's classifier of addresses ChatBot cannot call", () => {
    for (const [address, kind] of ADDRESSES) {
        it(`${JSON.stringify(address)}: ${kind ?? "on the internet"}`, () => {
            assert.equal(unreachableKind(address), kind);
        });
    }

    it("a url's numeric host forms are the dotted address once parsed, as fetch parses them, and classified as such", () => {
        for (const [written, parsed, kind] of HOSTS) {
            const hostname = new URL(`http://${written}:8080/hook`).hostname;
            assert.equal(hostname, parsed, written);
            assert.equal(unreachableKind(hostname.replace(/^\[(.*)\]$/, "$1")), kind, written);
        }
    });
});
