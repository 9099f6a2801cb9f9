// IP address parsing to 16 comparable bytes (IPv4 as IPv4-mapped IPv6), and the special-purpose ranges that
// have no geolocation (RFC 6890 and friends), checked with node's BlockList.
import net from "node:net";

/** 16 bytes, IPv4 as ::ffff:a.b.c.d, so one ordered key holds both families. */
export function ipBytes(ip: string): Buffer | undefined {
  const v = net.isIP(ip);
  if (v === 4) return Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ip.split(".").map(Number)]);
  if (v !== 6) return undefined;
  // An embedded dotted quad (::ffff:1.2.3.4) becomes its two hex groups (::ffff:102:304).
  const text = ip.split("%")[0].replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) =>
    `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const [head, rest] = text.includes("::") ? text.split("::") : [text, undefined];
  const h = head ? head.split(":").map((x) => parseInt(x, 16)) : [];
  const r = rest ? rest.split(":").map((x) => parseInt(x, 16)) : [];
  const groups = rest === undefined ? h : [...h, ...new Array(8 - h.length - r.length).fill(0), ...r];
  if (groups.length !== 8) return undefined;
  const b = Buffer.alloc(16);
  groups.forEach((g, i) => b.writeUInt16BE(g, i * 2));
  return b;
}

const V4_MAPPED = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]);

/** The address in its usual text form: an IPv4-mapped IPv6 address is unwrapped to IPv4. */
export function canonical(b: Buffer): { ip: string; version: 4 | 6 } {
  if (b.subarray(0, 12).equals(V4_MAPPED)) return { ip: [...b.subarray(12)].join("."), version: 4 };
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  // Compress the longest run of zero groups, as RFC 5952 asks.
  let best = [-1, 0];
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best[1] && j - i > 1) best = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  if (best[0] < 0) return { ip: groups.join(":"), version: 6 };
  const left = groups.slice(0, best[0]).join(":");
  const right = groups.slice(best[0] + best[1]).join(":");
  return { ip: `${left}::${right}`, version: 6 };
}

const SPECIAL: [string, number, "ipv4" | "ipv6", string][] = [
  ["0.0.0.0", 8, "ipv4", "this-network"],
  ["10.0.0.0", 8, "ipv4", "private"],
  ["100.64.0.0", 10, "ipv4", "carrier-grade-nat"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["169.254.0.0", 16, "ipv4", "link-local"],
  ["172.16.0.0", 12, "ipv4", "private"],
  ["192.0.0.0", 24, "ipv4", "ietf-protocol-assignments"],
  ["192.0.2.0", 24, "ipv4", "documentation"],
  ["192.168.0.0", 16, "ipv4", "private"],
  ["198.18.0.0", 15, "ipv4", "benchmarking"],
  ["198.51.100.0", 24, "ipv4", "documentation"],
  ["203.0.113.0", 24, "ipv4", "documentation"],
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved"],
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  ["64:ff9b::", 96, "ipv6", "nat64"],
  ["100::", 64, "ipv6", "discard"],
  ["2001:db8::", 32, "ipv6", "documentation"],
  ["fc00::", 7, "ipv6", "unique-local"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["ff00::", 8, "ipv6", "multicast"],
];

const lists = SPECIAL.map(([addr, prefix, type, name]) => {
  const l = new net.BlockList();
  l.addSubnet(addr, prefix, type);
  return { list: l, type, name };
});

/** The special-purpose range an address is in (private, loopback, ...), or null for a public address. */
export function reservedRange(ip: string, version: 4 | 6): string | null {
  const type = version === 4 ? "ipv4" : "ipv6";
  return lists.find((l) => l.type === type && l.list.check(ip, type))?.name ?? null;
}
