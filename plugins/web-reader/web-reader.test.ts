// web-reader end to end against a real local site (allowed only by the fetcher's test-only address policy):
// the endpoints go through the safe fetcher, so a redirect to a private address or the metadata service is
// refused, and a page's declared charset is honoured.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { freeAccess, getJson, useTestServer } from "../../test/support/helpers.ts";
import { clearRobotsCache, setTestAddressPolicy } from "../shared/safe-fetch.ts";
import type { Running } from "../../engine/http/server.ts";

describe("web-reader through the safe fetcher", () => {
  let server: Running;
  useTestServer({ access: freeAccess }, (s) => (server = s));
  let site: http.Server;
  let origin: string;
  const paths: string[] = [];

  before(async () => {
    site = http.createServer((req, res) => {
      paths.push(req.url ?? "");
      if (req.url === "/robots.txt") return res.writeHead(404).end();
      if (req.url === "/to-metadata") return res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      if (req.url === "/to-loopback") return res.writeHead(301, { location: "http://[::1]/admin" }).end();
      if (req.url === "/latin1") {
        res.writeHead(200, { "content-type": "text/html; charset=windows-1252" });
        return res.end(Buffer.from("<html><head><title>Caf\xe9 cr\xe8me \x96 menu</title></head><body><p>Un caf\xe9.</p></body></html>", "latin1"));
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    setTestAddressPolicy({ allowAddresses: ["127.0.0.1"], anyPort: true });
  });
  after(() => {
    setTestAddressPolicy(undefined);
    site.closeAllConnections();
    site.close();
  });
  beforeEach(() => clearRobotsCache());

  it("refuses a page that redirects to the cloud metadata service, without following it", async () => {
    const res = await getJson(`${server.url}/v1/web-reader/read?url=${encodeURIComponent(`${origin}/to-metadata`)}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.param, "url");
    assert.match(res.body.detail, /169\.254\.169\.254/);
  });

  it("refuses a redirect to loopback", async () => {
    const res = await getJson(`${server.url}/v1/web-reader/links?url=${encodeURIComponent(`${origin}/to-loopback`)}`);
    assert.equal(res.status, 400);
    assert.match(res.body.detail, /\[::1\]/);
  });

  it("decodes a page in its declared charset", async () => {
    const res = await getJson(`${server.url}/v1/web-reader/extract?url=${encodeURIComponent(`${origin}/latin1`)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.title, "Café crème – menu");
  });

  it("without the test policy, the local site itself is refused before payment", async () => {
    setTestAddressPolicy(undefined);
    try {
      const res = await getJson(`${server.url}/v1/web-reader/read?url=${encodeURIComponent(`${origin}/latin1`)}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.param, "url");
    } finally {
      setTestAddressPolicy({ allowAddresses: ["127.0.0.1"], anyPort: true });
    }
  });
});
