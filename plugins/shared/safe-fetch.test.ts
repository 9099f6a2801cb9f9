// The fetcher for callers' URLs (plugins/shared/safe-fetch.ts) against hostile URLs. Nothing here reaches the
// internet: servers listen on 127.0.0.1, which only a test-only policy allows, and names resolve through injected
// lookups.
import assert from "node:assert/strict";
import http from "node:http";
import zlib from "node:zlib";
import type { AddressInfo, LookupFunction } from "node:net";
import { checkUrl, clearRobotsCache, isAllowedAddress, safeFetch, SafeFetchError, setTestAddressPolicy, type SafeFetchFailure } from "./safe-fetch.ts";
import nock from "nock";
import { USER_AGENT } from "../../engine/upstream/exchange.ts";
import { isolateNetwork } from "../../test/support/helpers.ts";

/** A lookup that answers `answers` in turn (the last one repeats), counting the calls. */
function fakeLookup(...answers: string[]): LookupFunction & { calls: number } {
  const f = ((hostname: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    const address = answers[Math.min(f.calls++, answers.length - 1)];
    const family = address.includes(":") ? 6 : 4;
    if (options?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction & { calls: number };
  f.calls = 0;
  return f;
}

async function rejects(p: Promise<unknown>, kind: SafeFetchFailure): Promise<SafeFetchError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SafeFetchError, `expected a SafeFetchError, got ${e}`);
    assert.equal(e.kind, kind, `${e.kind}: ${e.message}`);
    return e;
  }
  assert.fail(`expected a ${kind} failure`);
}

describe("safe fetch: the URL gate", () => {
  const blocked = [
    "http://127.0.0.1/", "http://127.1/", "http://2130706433/", "http://0x7f000001/", "http://0x7f.0x0.0x0.0x1/", "http://0177.0.0.1/",
    "http://017700000001/", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/", "http://[0:0:0:0:0:ffff:7f00:1]/",
    "http://10.0.0.1/", "http://172.16.5.4/", "http://192.168.1.1/", "http://100.64.0.1/", "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/", "http://100.100.100.200/", "http://168.63.129.16/", "http://0.0.0.0/", "http://0/", "http://[::]/",
    "http://224.0.0.1/", "http://255.255.255.255/", "http://[ff02::1]/", "http://[fe80::1]/", "http://[fc00::1]/",
    "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::1]/", "http://192.0.2.1/", "http://198.18.0.1/", "http://192.0.0.8/", "http://[2001:db8::1]/", "http://240.0.0.1/",
    "http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/", "http://2852039166/",
  ];
  for (const url of blocked) {
    it(`refuses ${url}`, () => {
      assert.throws(() => checkUrl(url), (e: unknown) => e instanceof SafeFetchError && e.kind === "blocked_address");
    });
  }
  const badNames = ["http://localhost/", "http://LOCALHOST./", "http://foo.localhost/", "http://printer.local/", "http://db.internal/", "http://metadata.google.internal/computeMetadata/v1/", "http://intranet/", "http://router.home.arpa/"];
  for (const url of badNames) {
    it(`refuses the local name ${url}`, () => {
      assert.throws(() => checkUrl(url), (e: unknown) => e instanceof SafeFetchError && e.kind === "blocked_address");
    });
  }
  const badSchemes = ["file:///etc/passwd", "ftp://example.com/", "gopher://example.com/", "data:text/html,hi", "javascript:alert(1)", "ws://example.com/", "dict://example.com:11211/", "not a url", "//example.com/"];
  for (const url of badSchemes) {
    it(`refuses ${url}`, () => {
      assert.throws(() => checkUrl(url), (e: unknown) => e instanceof SafeFetchError && e.kind === "invalid_url");
    });
  }
  it("refuses user:pass@ and unusual ports", () => {
    assert.throws(() => checkUrl("http://user:pass@example.com/"), /user name or password/);
    assert.throws(() => checkUrl("http://example.com:22/"), /port 22/);
    assert.throws(() => checkUrl("http://example.com:6379/"), /port 6379/);
  });
  it("lets public hosts and addresses through", () => {
    assert.equal(checkUrl("https://example.com/a?b=1").hostname, "example.com");
    assert.equal(checkUrl("http://93.184.215.14/").hostname, "93.184.215.14");
    assert.equal(checkUrl("https://[2606:4700:4700::1111]/").hostname, "[2606:4700:4700::1111]");
    assert.equal(checkUrl("http://example.com:8080/").port, "8080");
  });
  it("classifies resolved addresses", () => {
    for (const a of ["127.0.0.1", "::1", "::ffff:10.0.0.1", "169.254.169.254", "fe80::1", "fd12::1", "0.0.0.0", "::", "239.1.1.1", "100.64.1.1", "64:ff9b::a00:1", "fd00:ec2::254"]) {
      assert.equal(isAllowedAddress(a), false, a);
    }
    for (const a of ["8.8.8.8", "2001:4860:4860::8888", "::ffff:8.8.8.8"]) assert.equal(isAllowedAddress(a), true, a);
    assert.equal(isAllowedAddress("not-an-ip"), false);
  });
});

describe("safe fetch: connections", () => {
  let server: http.Server;
  let port: number;
  let seen: { path: string; headers: http.IncomingHttpHeaders }[];
  let robots: { status: number; body: string };
  const routes = new Map<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>();

  before(async () => {
    // Other test files leave nock refusing every host but loopback, before any DNS lookup: here the names must
    // reach the fetcher's own lookup (injected, so nothing leaves this machine).
    nock.enableNetConnect();
    server = http.createServer((req, res) => {
      seen.push({ path: req.url ?? "", headers: req.headers });
      if (req.url === "/robots.txt") {
        res.writeHead(robots.status, { "content-type": "text/plain" });
        return res.end(robots.body);
      }
      const route = routes.get(req.url ?? "");
      if (route) return route(req, res);
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<html><title>ok</title></html>");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    isolateNetwork();
    setTestAddressPolicy(undefined);
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    seen = [];
    robots = { status: 404, body: "" };
    clearRobotsCache();
    setTestAddressPolicy({ allowAddresses: ["127.0.0.1"], anyPort: true });
  });

  it("fetches an allowed server, sending our User-Agent", async () => {
    const res = await safeFetch(`http://127.0.0.1:${port}/page`);
    assert.equal(res.status, 200);
    assert.match(res.body.toString(), /<title>ok/);
    assert.deepEqual(seen.map((s) => s.path), ["/robots.txt", "/page"]);
    assert.equal(seen[1].headers["user-agent"], USER_AGENT);
    await safeFetch(`http://127.0.0.1:${port}/other`, { env: { UPSTREAM_USER_AGENT: "ExampleBot/2.0 (ops@example.org)" } });
    assert.equal(seen.at(-1)!.headers["user-agent"], "ExampleBot/2.0 (ops@example.org)");
  });

  it("without the test policy, even the same server is refused", async () => {
    setTestAddressPolicy(undefined);
    await rejects(safeFetch(`http://127.0.0.1:${port}/`), "invalid_url"); // its port, first
    setTestAddressPolicy({ allowAddresses: [], anyPort: true });
    await rejects(safeFetch(`http://127.0.0.1:${port}/`), "blocked_address");
    await rejects(safeFetch(`http://site.example:${port}/`, { lookup: fakeLookup("127.0.0.1") }), "blocked_address");
    assert.equal(seen.length, 0);
  });

  for (const address of ["127.0.0.2", "10.1.2.3", "192.168.0.10", "169.254.169.254", "::1", "::ffff:127.0.0.1", "fe80::1", "fd00::1", "0.0.0.0", "100.64.0.9"]) {
    it(`refuses a name that resolves to ${address}`, async () => {
      const lookup = fakeLookup(address);
      const e = await rejects(safeFetch(`http://evil.example:${port}/`, { lookup, ignoreRobots: true }), "blocked_address");
      assert.match(e.message, /private, local or reserved|not allowed/);
      assert.equal(seen.length, 0);
    });
  }

  it("refuses a name with one bad address among good ones", async () => {
    const lookup = ((_h: string, _o: unknown, cb: (...a: unknown[]) => void) => cb(null, [{ address: "127.0.0.1", family: 4 }, { address: "10.0.0.1", family: 4 }])) as unknown as LookupFunction;
    await rejects(safeFetch(`http://mixed.example:${port}/`, { lookup, ignoreRobots: true }), "blocked_address");
  });

  it("DNS rebinding: the address is checked on every connection, so a second answer cannot switch to a private one", async () => {
    // First resolution (robots.txt) gives the allowed server; the second (the page) a private address.
    const lookup = fakeLookup("127.0.0.1", "10.0.0.7");
    await rejects(safeFetch(`http://rebind.example:${port}/secret`, { lookup }), "blocked_address");
    assert.deepEqual(seen.map((s) => s.path), ["/robots.txt"]);
    assert.equal(lookup.calls, 2);
  });

  it("DNS rebinding to loopback itself is refused when only the first answer was allowed", async () => {
    setTestAddressPolicy({ allowAddresses: ["127.0.0.1"], anyPort: true });
    const lookup = fakeLookup("127.0.0.1", "::1");
    await rejects(safeFetch(`http://rebind.example:${port}/secret`, { lookup }), "blocked_address");
    assert.ok(!seen.some((s) => s.path === "/secret"));
  });

  for (const [name, location] of [
    ["127.0.0.2 (loopback)", "http://127.0.0.2:PORT/admin"],
    ["localhost", "http://localhost:PORT/admin"],
    ["[::1]", "http://[::1]:PORT/admin"],
    ["the metadata service", "http://169.254.169.254/latest/meta-data/iam/"],
    ["a decimal address", "http://2130706434:PORT/"],
    ["file:", "file:///etc/passwd"],
    ["gopher:", "gopher://127.0.0.1:6379/_INFO"],
  ] as const) {
    it(`refuses a redirect to ${name}`, async () => {
      routes.set("/go", (_req, res) => {
        res.writeHead(302, { location: location.replace("PORT", String(port)) });
        res.end();
      });
      const e = await rejects(safeFetch(`http://127.0.0.1:${port}/go`), location.startsWith("http") ? "blocked_address" : "invalid_url");
      assert.equal(e.url, new URL(location.replace("PORT", String(port))).href);
      assert.deepEqual(seen.map((s) => s.path), ["/robots.txt", "/go"]);
    });
  }

  it("re-checks a redirect to a name that resolves privately", async () => {
    routes.set("/go", (_req, res) => {
      res.writeHead(301, { location: `http://inside.example:${port}/x` });
      res.end();
    });
    const lookup = ((host: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) => {
      const address = host === "inside.example" ? "192.168.1.1" : "127.0.0.1";
      if (o?.all) cb(null, [{ address, family: 4 }]);
      else cb(null, address, 4);
    }) as unknown as LookupFunction;
    await rejects(safeFetch(`http://outside.example:${port}/go`, { lookup }), "blocked_address");
  });

  it("follows allowed redirects and records each hop; stops a loop", async () => {
    routes.set("/a", (_req, res) => {
      res.writeHead(301, { location: "/b" });
      res.end();
    });
    const res = await safeFetch(`http://127.0.0.1:${port}/a`);
    assert.equal(res.final_url, `http://127.0.0.1:${port}/b`);
    assert.deepEqual(res.hops.map((h) => h.status), [301, 200]);
    routes.set("/loop", (_req, res) => {
      res.writeHead(302, { location: "/loop" });
      res.end();
    });
    await rejects(safeFetch(`http://127.0.0.1:${port}/loop`, { maxRedirects: 3 }), "too_many_redirects");
  });

  it("refuses a body larger than the cap (declared, streamed, or a gzip bomb)", async () => {
    routes.set("/declared", (_req, res) => {
      res.writeHead(200, { "content-length": String(100 * 1024 * 1024) });
      res.write("x");
    });
    routes.set("/streamed", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, 120);
      let sent = 0;
      const push = () => {
        while (sent < 50 && res.write(chunk)) sent++;
        if (sent < 50) res.once("drain", push);
        else res.end();
      };
      push();
    });
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024));
    routes.set("/bomb", (_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip", "content-length": String(bomb.length) });
      res.end(bomb);
    });
    const started = Date.now();
    await rejects(safeFetch(`http://127.0.0.1:${port}/declared`, { maxBytes: 1024 * 1024 }), "too_large");
    await rejects(safeFetch(`http://127.0.0.1:${port}/streamed`, { maxBytes: 1024 * 1024 }), "too_large");
    await rejects(safeFetch(`http://127.0.0.1:${port}/bomb`, { maxBytes: 1024 * 1024 }), "too_large");
    assert.ok(bomb.length < 1024 * 1024);
    assert.ok(Date.now() - started < 5_000);
  });

  it("cuts off a body that never ends, and a server that never answers", async () => {
    routes.set("/forever", (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const timer = setInterval(() => res.write("."), 20);
      res.on("close", () => clearInterval(timer));
    });
    routes.set("/silent", () => {});
    const started = Date.now();
    await rejects(safeFetch(`http://127.0.0.1:${port}/forever`, { timeoutMs: 500 }), "timeout");
    await rejects(safeFetch(`http://127.0.0.1:${port}/silent`, { timeoutMs: 300 }), "timeout");
    assert.ok(Date.now() - started < 3_000);
  });

  it("honours robots.txt for our User-Agent token", async () => {
    robots = { status: 200, body: "User-agent: *\nAllow: /\n\nUser-agent: public-data-api\nDisallow: /private\n" };
    const e = await rejects(safeFetch(`http://127.0.0.1:${port}/private/page`), "robots_disallowed");
    assert.match(e.message, /robots\.txt \(line 5\)/);
    assert.equal((await safeFetch(`http://127.0.0.1:${port}/public`)).status, 200);
    assert.ok(!seen.some((s) => s.path.startsWith("/private")));
    assert.equal(seen.filter((s) => s.path === "/robots.txt").length, 1, "robots.txt is cached per origin");
  });

  it("treats a robots.txt server error as disallow-all and a 404 as allow-all (RFC 9309)", async () => {
    robots = { status: 503, body: "busy" };
    await rejects(safeFetch(`http://127.0.0.1:${port}/page`), "robots_disallowed");
    clearRobotsCache();
    robots = { status: 404, body: "" };
    assert.equal((await safeFetch(`http://127.0.0.1:${port}/page`)).status, 200);
  });

  it("checks robots.txt again on the origin a redirect leads to", async () => {
    robots = { status: 200, body: "User-agent: *\nDisallow: /no\n" };
    routes.set("/to-no", (_req, res) => {
      res.writeHead(302, { location: "/no/thing" });
      res.end();
    });
    await rejects(safeFetch(`http://127.0.0.1:${port}/to-no`), "robots_disallowed");
    assert.ok(!seen.some((s) => s.path === "/no/thing"));
  });
});
