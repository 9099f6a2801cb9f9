// The URL gate for callers' URLs (plugins/shared/safe-fetch.ts fetches them; a `public-url` parameter is
// checked with it before payment): http/https only, ports 80/443/8080/8443, no user:pass@, no names that are
// local by definition (localhost, *.local, *.internal, *.localhost, a single label), and an address literal
// must be a public unicast address. The WHATWG parser has already turned 0x7f000001, 2130706433, 0177.0.0.1 and
// 127.1 into 127.0.0.1, so every spelling of an address meets the same check. Names are checked again after
// DNS, at connect time, by the fetcher.
import net from "node:net";
import ipaddr from "ipaddr.js";

const ALLOWED_PORTS = new Set(["", "80", "443", "8080", "8443"]);
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".localdomain"];

/** Addresses that are unicast in ipaddr.js's view but are cloud metadata services all the same. */
const METADATA_ADDRESSES = ["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254", "168.63.129.16"];
/** Special-purpose blocks that ipaddr.js counts as unicast (RFC 6890): benchmarking, IETF assignments, 6to4 relay, documentation, discard. */
const EXTRA_BLOCKED_CIDRS = ["198.18.0.0/15", "192.0.0.0/24", "192.88.99.0/24", "2001:db8::/32", "100::/64"];
export const DENIED_ADDRESSES = [...METADATA_ADDRESSES, ...EXTRA_BLOCKED_CIDRS];
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata", "instance-data", "instance-data.ec2.internal"]);

export type SafeFetchFailure = "invalid_url" | "blocked_address" | "robots_disallowed" | "too_large" | "timeout" | "network" | "too_many_redirects";

export class SafeFetchError extends Error {
  readonly kind: SafeFetchFailure;
  readonly url: string;
  constructor(kind: SafeFetchFailure, url: string, message: string) {
    super(message);
    this.kind = kind;
    this.url = url;
  }
}

/** What only tests may loosen: addresses allowed although private (a local test server), and any port. */
export interface TestPolicy {
  allowAddresses: string[];
  anyPort: boolean;
}
let testPolicy: TestPolicy | undefined;

/** Tests only: allow these exact addresses (e.g. "127.0.0.1" for a local server) and any port. undefined restores the rules. */
export function setTestAddressPolicy(policy: TestPolicy | undefined): void {
  testPolicy = policy;
}

/** The policy in force (undefined outside tests). */
export function testAddressPolicy(): TestPolicy | undefined {
  return testPolicy;
}

/** Whether a resolved address may be connected to: public unicast only (no private, loopback, link-local, CGNAT, multicast, reserved, unspecified, mapped or translated forms). */
export function isAllowedAddress(address: string): boolean {
  if (!net.isIP(address)) return false;
  if (testPolicy?.allowAddresses.includes(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (METADATA_ADDRESSES.some((m) => ipaddr.parse(m).toNormalizedString() === parsed.toNormalizedString())) return false;
  if (EXTRA_BLOCKED_CIDRS.some((c) => {
    const cidr = ipaddr.parseCIDR(c);
    return cidr[0].kind() === parsed.kind() && (parsed.match as (c: [ipaddr.IPv4 | ipaddr.IPv6, number]) => boolean)(cidr);
  })) return false;
  return parsed.range() === "unicast";
}

/** Checks a URL before any connection: scheme, port, credentials, local names and address literals. Returns the parsed URL. */
export function checkUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new SafeFetchError("invalid_url", String(raw), "is not an absolute URL");
  }
  const shown = url.href;
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new SafeFetchError("invalid_url", shown, `uses ${url.protocol} (only http and https URLs are fetched)`);
  if (url.username || url.password) throw new SafeFetchError("invalid_url", shown, "carries a user name or password, which is not sent");
  if (!ALLOWED_PORTS.has(url.port) && !testPolicy?.anyPort) throw new SafeFetchError("invalid_url", shown, `uses port ${url.port} (only 80, 443, 8080 and 8443 are fetched)`);
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  if (!host) throw new SafeFetchError("invalid_url", shown, "has no host");
  if (net.isIP(host)) {
    if (!isAllowedAddress(host)) throw new SafeFetchError("blocked_address", shown, `points at ${host}, a private, local or reserved address`);
    return url;
  }
  if (host === "localhost" || LOCAL_SUFFIXES.some((s) => host.endsWith(s)) || METADATA_NAMES.has(host) || !host.includes(".")) {
    throw new SafeFetchError("blocked_address", shown, `names ${host}, a local host name`);
  }
  return url;
}

