// What a client downloads: a body over 1 KB goes compressed when the client accepts it (br preferred to gzip at
// equal q), on every route; never without Accept-Encoding, never a 402 (x402 clients read it as sent), and a small
// body as it is.
import assert from "node:assert/strict";
import nock from "nock";
import { BOE, BOE_PATH, smallAllowanceEndpoints } from "../support/x402-service.ts";
import { startTestServer } from "../support/helpers.ts";
import { rawRequest } from "./raw-request.ts";
import type { Running } from "../../engine/http/server.ts";

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const PAY_TO = "0x1111111111111111111111111111111111111111";
const TOOLS_LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

/** Bank Rate on each working day of 2024, in the Bank of England's CSV as in endpoints/bank-of-england/fixtures/IUDBEDR.csv. */
function bankRate2024(): string {
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const rows = ["DATE,IUDBEDR"];
  for (const d = new Date("2024-01-01T00:00:00Z"); d.getUTCFullYear() === 2024; d.setUTCDate(d.getUTCDate() + 1)) {
    if (d.getUTCDay() === 0 || d.getUTCDay() === 6) continue;
    rows.push(`${String(d.getUTCDate()).padStart(2, "0")} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()},${d.getUTCMonth() < 7 ? "5.25" : "5.00"}`);
  }
  return rows.join("\n") + "\n";
}

describe("compressed answers", function () {
  this.timeout(30_000);
  let server: Running;
  let key: string;
  before(async () => {
    nock(BOE).persist().get(BOE_PATH).query((q) => q.SeriesCodes === "IUDBEDR").reply(200, bankRate2024(), { "content-type": "application/csv" });
    // With an address to pay, a 402 carries the x402 requirements: a body over the threshold.
    server = await startTestServer({ env: { X402_PAY_TO: PAY_TO }, config: { endpointsDir: smallAllowanceEndpoints() } });
    key = ((await (await fetch(`${server.url}/free`, { method: "POST" })).json()) as { key: string }).key;
  });
  after(async () => {
    await server?.close();
    nock.cleanAll();
  });

  // Each route, and what must be the same however it is sent (an answer's meta changes from call to call).
  const json = (pick: (body: any) => unknown) => (text: string) => pick(JSON.parse(text));
  const whole = (text: string) => text;
  const routes: [string, () => Parameters<typeof rawRequest>, (text: string) => unknown][] = [
    ["the landing page", () => [`${server.url}/`], whole],
    ["a group page", () => [`${server.url}/groups/bank-of-england`], whole],
    ["/openapi.json", () => [`${server.url}/openapi.json`], whole],
    ["an API answer", () => [`${server.url}/v1/bank-of-england/bank-rate?from=2024-01-01`, { headers: { "x-api-key": key } }], json((b) => b.data)],
    ["an MCP answer (tools/list)", () => [`${server.url}/mcp?groups=all`, { method: "POST", headers: MCP_HEADERS, body: TOOLS_LIST }], json((b) => b.result.tools)],
  ];

  for (const [name, request, same] of routes) {
    it(`${name}: br, gzip, or as it is without Accept-Encoding, the same content each way`, async () => {
      const [url, opts = {}] = request();
      const get = (encoding?: string) => rawRequest(url, { ...opts, headers: { ...opts.headers, ...(encoding ? { "accept-encoding": encoding } : {}) } });
      const plain = await get();
      assert.equal(plain.status, 200);
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.ok(plain.raw.length > 1024, `a body over the threshold (${plain.raw.length} bytes)`);
      assert.match(String(plain.headers.vary), /accept-encoding/i);
      for (const [accepted, expected] of [["br", "br"], ["gzip", "gzip"], ["gzip, deflate, br", "br"], ["br;q=0.5, gzip", "gzip"]]) {
        const res = await get(accepted);
        assert.equal(res.headers["content-encoding"], expected, `Accept-Encoding: ${accepted}`);
        assert.match(String(res.headers.vary), /accept-encoding/i);
        assert.ok(res.raw.length < plain.raw.length / 2, `${accepted}: ${res.raw.length} of ${plain.raw.length} bytes`);
        assert.deepEqual(same(res.text()), same(plain.text()), accepted);
      }
    });
  }

  it("a small body goes as it is", async () => {
    const res = await rawRequest(`${server.url}/favicon.svg`, { headers: { "accept-encoding": "br, gzip" } });
    assert.equal(res.status, 200);
    assert.ok(res.raw.length < 1024);
    assert.equal(res.headers["content-encoding"], undefined);
  });

  it("a 402 goes as it is, whatever the client accepts", async () => {
    let res;
    for (let i = 0; i < 10 && res?.status !== 402; i++) {
      res = await rawRequest(`${server.url}/v1/bank-of-england/bank-rate?from=2025-01-01`, { headers: { "accept-encoding": "br, gzip" } });
    }
    assert.equal(res!.status, 402);
    assert.ok(res!.text().length > 1024, `a body over the threshold (${res!.text().length} bytes)`);
    assert.equal(res!.headers["content-encoding"], undefined);
    assert.equal(JSON.parse(res!.raw.toString("utf8")).status, 402);
  });
});
