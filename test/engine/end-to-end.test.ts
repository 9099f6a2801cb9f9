// The engine end to end through HTTP: errors in the shared problem shape, upstream faults, cache and
// single-flight, source overrides, start-up validation, and the generated OpenAPI document and docs page.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { validate, compileErrors } from "@readme/openapi-parser";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { USER_AGENT } from "../../engine/upstream/exchange.ts";
import { ROOT, fixture, freeAccess, getJson, startTestServer, tempDir } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

const BOE = "https://www.bankofengland.co.uk";
const BOE_PATH = "/boeapps/database/_iadb-fromshowcolumns.asp";
const ONS = "https://api.beta.ons.gov.uk";
const CPI_URI = "/economy/inflationandpriceindices/timeseries/d7g7/mm23";

describe("engine", () => {
  let server: Running;
  before(async () => {
    server = await startTestServer({ access: freeAccess, config: { upstreamTimeoutMs: 300, upstreamRetries: 1 } });
  });
  after(async () => {
    await server?.close();
  });
  afterEach(() => {
    nock.cleanAll();
    server.engine.clearCaches();
  });

  describe("bad input answers 400 problem details naming the parameter", () => {
    const cases: [string, string, string, RegExp][] = [
      ["/v1/bank-of-england/bank-rate?from=2025-02-30", "from", "invalid_parameter", /YYYY-MM-DD.*does not exist/],
      ["/v1/bank-of-england/bank-rate?from=yesterday", "from", "invalid_parameter", /a date as YYYY-MM-DD/],
      ["/v1/bank-of-england/bank-rate?colour=red", "colour", "unknown_parameter", /takes: from/],
      ["/v1/bank-of-england/series", "code", "missing_parameter", /code is required/],
      ["/v1/bank-of-england/series?code=IU-DB", "code", "invalid_parameter", /code must be text matching/],
      ["/v1/uk-economy/cpi-annual-rate?values=0", "values", "invalid_parameter", /whole number from 1 to 1000/],
      ["/v1/uk-economy/cpi-annual-rate?values=2.5", "values", "invalid_parameter", /whole number/],
      ["/v1/uk-economy/cpi-annual-rate?frequency=weekly", "frequency", "invalid_parameter", /one of months, quarters, years/],
      ["/v1/uk-economy/cpi-annual-rate?values=3&values=4", "values", "invalid_parameter", /more than once/],
    ];
    for (const [url, param, code, detail] of cases) {
      it(`${url} -> ${code} on ${param}`, async () => {
        const res = await getJson(server.url + url);
        assert.equal(res.status, 400);
        assert.match(res.headers.get("content-type")!, /^application\/problem\+json/);
        assert.equal(res.body.status, 400);
        assert.equal(res.body.code, code);
        assert.equal(res.body.param, param);
        assert.match(res.body.detail, detail);
        assert.equal(res.body.type, `/problems#${code}`);
        assert.ok(res.body.title);
      });
    }
  });

  it("answers 404 unknown_endpoint for an operation or group that does not exist, listing what does", async () => {
    const op = await getJson(`${server.url}/v1/bank-of-england/base-rate`);
    assert.equal(op.status, 404);
    assert.equal(op.body.code, "unknown_endpoint");
    assert.match(op.body.detail, /bank-rate/);
    const group = await getJson(`${server.url}/v1/nowhere/thing`);
    assert.equal(group.status, 404);
    assert.match(group.body.detail, /bank-of-england/);
  });

  it("maps an upstream 404 to our 404 where the endpoint file says so", async () => {
    nock(ONS).get("/v1/data").query({ uri: CPI_URI }).reply(404, { errors: ["not found"] });
    const res = await getJson(`${server.url}/v1/uk-economy/cpi-annual-rate`);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, "not_found");
    assert.match(res.body.detail, /ONS has no such time series/);
  });

  it("answers 502 naming the source when the upstream keeps failing, after a bounded retry", async () => {
    const scope = nock(BOE).get(BOE_PATH).query(true).times(2).reply(500, "Internal Server Error");
    const res = await getJson(`${server.url}/v1/bank-of-england/bank-rate`);
    assert.equal(res.status, 502);
    assert.equal(res.body.code, "upstream_error");
    assert.equal(res.body.upstream, "bank-of-england");
    assert.match(res.body.detail, /bank-of-england answered HTTP 500.*not charged/);
    assert.doesNotMatch(JSON.stringify(res.body), /at .*\.ts:\d+/, "no stack trace");
    assert.ok(scope.isDone(), "the failed request was retried once");
  });

  it("recovers when a retry succeeds", async () => {
    nock(BOE).get(BOE_PATH).query(true).reply(503, "busy").get(BOE_PATH).query(true).reply(200, fixture("bank-of-england:IUDBEDR.csv"));
    const res = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.latest.value, 4);
  });


  it("answers 502 upstream_bad_response for a body that is not what the format says", async () => {
    nock(ONS).get("/v1/data").query(true).reply(200, "<html><body>Service unavailable</body></html>", { "content-type": "text/html" });
    const res = await getJson(`${server.url}/v1/uk-economy/cpi-annual-rate`);
    assert.equal(res.status, 502);
    assert.equal(res.body.code, "upstream_bad_response");
    assert.match(res.body.detail, /an HTML page instead of JSON/);
    nock(ONS).get("/v1/data").query(true).reply(200, '{"observations": [', { "content-type": "application/json" });
    const cut = await getJson(`${server.url}/v1/uk-economy/cpi-annual-rate`);
    assert.equal(cut.status, 502);
    assert.match(cut.body.detail, /not valid JSON/);
  });

  it("answers 502 when the Bank of England sends its HTML page for a fixed series", async () => {
    nock(BOE).get(BOE_PATH).query(true).reply(200, fixture("bank-of-england:not-a-series.html"), { "content-type": "text/html" });
    const res = await getJson(`${server.url}/v1/bank-of-england/gbp-usd`);
    assert.equal(res.status, 502);
    assert.match(res.body.detail, /HTML page instead of the CSV/);
  });

  it("answers 502 when a well-formed body has none of the expected content", async () => {
    nock(ONS).get("/v1/data").query(true).reply(200, { unexpected: true });
    const res = await getJson(`${server.url}/v1/uk-economy/cpi-annual-rate`);
    assert.equal(res.status, 502);
    assert.equal(res.body.code, "upstream_bad_response");
  });

  it("sends an identifying User-Agent", async () => {
    const scope = nock(ONS, { reqheaders: { "user-agent": USER_AGENT } }).get("/v1/data").query(true).reply(200, fixture("uk-economy:d7g7-mm23.json"));
    const res = await getJson(`${server.url}/v1/uk-economy/cpi-annual-rate`);
    assert.equal(res.status, 200);
    assert.ok(scope.isDone());
  });

  it("serves a repeated call from the cache and says so", async () => {
    const scope = nock(ONS).get("/v1/data").query({ uri: CPI_URI }).once().reply(200, fixture("uk-economy:d7g7-mm23.json"));
    const first = await getJson(`${server.url}/v1/uk-economy/cpi-annual-rate`);
    const second = await getJson(`${server.url}/v1/uk-economy/cpi-annual-rate?values=3`);
    assert.equal(first.body.meta.sources[0].cached, false);
    assert.equal(first.headers.get("x-cache"), "MISS");
    assert.equal(second.body.meta.sources[0].cached, true);
    assert.equal(second.headers.get("x-cache"), "HIT");
    assert.equal(second.body.data.values.length, 3, "the transform still applies the call's own parameters");
    assert.ok(scope.isDone());
  });

  it("makes one upstream request for concurrent identical calls (single-flight)", async () => {
    let requests = 0;
    nock(ONS).get("/v1/data").query(true).delay(150).reply(() => {
      requests++;
      return [200, fixture("uk-economy:d7g7-mm23.json")];
    }).persist();
    const results = await Promise.all(Array.from({ length: 8 }, () => getJson(`${server.url}/v1/uk-economy/cpi-annual-rate`)));
    assert.deepEqual(results.map((r) => r.status), Array(8).fill(200));
    assert.equal(requests, 1);
  });

  it("says in every answer where the data came from", async () => {
    nock(ONS).get("/v1/data").query(true).reply(200, fixture("uk-economy:d7g7-mm23.json"));
    const res = await getJson(`${server.url}/v1/uk-economy/cpi-annual-rate`);
    const src = res.body.meta.sources[0];
    assert.equal(src.source, "ons");
    assert.equal(src.url, `https://api.beta.ons.gov.uk/v1/data?uri=${encodeURIComponent(CPI_URI)}`);
    assert.ok(Math.abs(Date.parse(src.fetched_at) - Date.now()) < 60_000);
    assert.match(res.body.meta.attribution, /Office for National Statistics/);
    assert.equal(res.body.meta.price_usd, 0.002);
  });

  it("GET /health answers 200 and says which local datasets are loaded", async () => {
    const before = await getJson(`${server.url}/health`);
    assert.equal(before.status, 200);
    assert.equal(before.body.status, "ok");
    assert.equal(before.body.endpoints, server.engine.registry.endpoints.size);
    assert.deepEqual(before.body.datasets.find((d: { name: string }) => d.name === "imei-tac"), { name: "imei-tac", loaded: false, state: "not_loaded" });
    await server.engine.datasets.loadTestDatasets!(["imei-tac"]);
    const after = await getJson(`${server.url}/health`);
    const tac = after.body.datasets.find((d: { name: string }) => d.name === "imei-tac");
    assert.equal(tac.loaded, true);
    assert.equal(tac.state, "loaded");
    assert.ok(tac.counts.tacs > 0);
    assert.ok(Date.parse(tac.loaded_at) > Date.now() - 60_000);
  });

  it("GET /groups/<group> lists every endpoint of the group with price, parameters and an example call", async () => {
    const pages = new Map<string, string>();
    for (const g of server.engine.registry.groups.values()) {
      const res = await fetch(`${server.url}/groups/${g.name}`);
      assert.match(res.headers.get("content-type")!, /text\/html/);
      pages.set(g.name, await res.text());
    }
    const html = [...pages.values()].join("\n");
    for (const e of server.engine.registry.endpoints.values()) {
      assert.ok(pages.get(e.group)!.includes(`GET ${e.path}`), `${e.path} listed`);
      assert.ok(html.includes(e.freeOnly ? "free allowance only" : `$${e.price} a call`), `${e.path} price`);
    }
    assert.match(html, /curl -H "X-API-Key: \$KEY" '[^']*\/v1\/bank-of-england\/bank-rate\?from=2025-08-01'/);
    assert.match(html, /Official Bank Rate/);
  });

  it("GET /openapi.json is a valid OpenAPI 3.1.0 document generated from the endpoint files", async () => {
    const res = await getJson(`${server.url}/openapi.json`);
    const doc = res.body;
    const result = await validate(structuredClone(doc));
    assert.ok(result.valid, compileErrors(result));
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.version, "1.1.0");
    assert.equal(Object.keys(doc.paths).length, server.engine.registry.endpoints.size);
    const op = doc.paths["/v1/bank-of-england/series"].get;
    assert.equal(op.operationId, "bank_of_england__series");
    assert.equal(op["x-price-usd"], 0.002);
    assert.deepEqual(Object.keys(op.responses).sort(), ["200", "400", "402", "404", "502", "503"]);
    const code = op.parameters.find((p: { name: string }) => p.name === "code");
    assert.equal(code.required, true);
    assert.equal(code.schema.pattern, "^[A-Z0-9]{5,12}$");
    const values = doc.paths["/v1/uk-economy/cpi-annual-rate"].get.parameters.find((p: { name: string }) => p.name === "values");
    assert.deepEqual(values.schema, { type: "integer", minimum: 1, maximum: 1000, default: 24 });
    assert.equal(doc.paths["/v1/uk-economy/cpi-annual-rate"].get.operationId, "uk_economy__cpi_annual_rate");
  });
});

describe("upstream sources", () => {
  it("answers 502 upstream_timeout when the upstream does not answer in time", async () => {
    let requests = 0;
    const slow = http.createServer((_req, res) => {
      requests++;
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(fixture("uk-economy:d7g7-mm23.json")), 1_500);
    });
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    const port = (slow.address() as AddressInfo).port;
    const server = await startTestServer({ access: freeAccess, env: { UPSTREAM_ONS: `http://127.0.0.1:${port}` }, config: { upstreamTimeoutMs: 300, upstreamRetries: 1 } });
    try {
      const res = await getJson(`${server.url}/v1/uk-economy/cpi-annual-rate`);
      assert.equal(res.status, 502);
      assert.equal(res.body.code, "upstream_timeout");
      assert.match(res.body.detail, /ons did not answer within 300 ms/);
      assert.equal(requests, 2, "one retry after the first timeout");
    } finally {
      await server.close();
      slow.closeAllConnections();
      slow.close();
    }
  });

  it("UPSTREAM_<NAME> sends a source's requests to another base URL with the same path and query; answers still name the public URL", async () => {
    const seen: string[] = [];
    const mirror = http.createServer((req, res) => {
      seen.push(req.url!);
      res.writeHead(200, { "content-type": "application/csv" }).end(fixture("bank-of-england:IUDBEDR.csv"));
    });
    await new Promise<void>((r) => mirror.listen(0, "127.0.0.1", r));
    const port = (mirror.address() as AddressInfo).port;
    const server = await startTestServer({ access: freeAccess, env: { UPSTREAM_BANK_OF_ENGLAND: `http://127.0.0.1:${port}/mirror` } });
    try {
      const res = await getJson(`${server.url}/v1/bank-of-england/bank-rate?from=2025-08-01`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.latest.value, 4);
      assert.equal(seen.length, 1);
      assert.equal(seen[0], `/mirror${BOE_PATH}?csv.x=yes&Datefrom=01%2FJan%2F2000&Dateto=now&SeriesCodes=IUDBEDR&CSVF=TN&UsingCodes=Y&VPD=Y&VFD=N`);
      // The answer names the public upstream; the mirror's address stays in the log.
      assert.match(res.body.meta.sources[0].url, /^https:\/\/www\.bankofengland\.co\.uk\/boeapps\//);
      assert.doesNotMatch(JSON.stringify(res.body), /127\.0\.0\.1/);
    } finally {
      await server.close();
      mirror.close();
    }
  });
});

describe("endpoint formats", () => {
  let server: Running;
  before(async () => {
    const dir = tempDir("pda-endpoints-");
    const write = (name: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    };
    write("demo/_group.yaml", "title: Demo\ndescription: Formats the engine reads\n");
    write("demo/filters.yaml", `operation: filters
summary: Passes free-form filters through
description: Any further query parameter is an upstream filter.
price: 0.001
params:
  dataset: { type: string, required: true, description: A dataset code. }
free_form_params: true
upstream:
  source: ons
  path: /datasets/{dataset}
transform: "{ 'filters': request.filters }"
examples:
  - params: { dataset: x }
`);
    write("demo/feed.yaml", `operation: feed
summary: Reads an XML feed
description: An Atom feed, parsed to JSON before the transform.
price: 0.001
upstream:
  source: ons
  path: /feed
  format: xml
transform: "{ 'title': feed.title, 'entries': [feed.entry.{ 'id': id, 'link': link.\\"@href\\" }] }"
examples:
  - params: {}
`);
    write("demo/near.yaml", `operation: near
summary: Things near a UK postcode
description: A postcode located with postcodes.io, then an upstream that takes a latitude and longitude.
price: 0.001
params:
  postcode: { type: string, format: uk-postcode, required: true, description: A UK postcode. }
  page: { type: integer, default: 1, minimum: 1, maximum: 50, description: Page of results. }
upstream:
  - as: place
    source: postcodes-io
    path: /postcodes/{postcode}
    statuses:
      "404": { status: 404, param: postcode, detail: "No such postcode: {postcode}." }
  - as: things
    source: fsa
    path: /things
    query:
      lat: "{= $steps.place.result.latitude }"
      lng: "{= $steps.place.result.longitude }"
      pageNumber: "{page}"
transform: "{ 'postcode': place.result.postcode, 'count': $count(things.items) }"
examples:
  - params: { postcode: TR18 5EG }
`);
    server = await startTestServer({ access: freeAccess, config: { endpointsDir: dir } });
  });
  after(async () => {
    nock.cleanAll();
    await server?.close();
  });

  it("passes undeclared parameters to the upstream query when the file takes free-form filters", async () => {
    nock(ONS).get("/v1/datasets/prc_hicp").query({ geo: "DE", unit: "RCH_A" }).reply(200, { request: { filters: "geo=DE&unit=RCH_A" } });
    const res = await getJson(`${server.url}/v1/demo/filters?dataset=prc_hicp&geo=DE&unit=RCH_A`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.filters, "geo=DE&unit=RCH_A");
  });

  it("takes a postcode input in YAML alone: locate it, then query by latitude and longitude", async () => {
    nock("https://api.postcodes.io").get("/postcodes/TR18%205EG").reply(200, fixture("uk-postcodes:TR18-5EG.json"));
    const things = nock("https://data.food.gov.uk").get("/things").query({ lat: "50.101832", lng: "-5.549482", pageNumber: "2" }).reply(200, { items: [1, 2, 3] });
    const res = await getJson(`${server.url}/v1/demo/near?postcode=tr185eg&page=2`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { postcode: "TR18 5EG", count: 3 });
    assert.ok(things.isDone());
    nock("https://api.postcodes.io").get("/postcodes/ZZ1%201ZZ").reply(404, { status: 404, error: "Postcode not found" });
    const missing = await getJson(`${server.url}/v1/demo/near?postcode=ZZ1%201ZZ`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.param, "postcode");
    assert.equal(missing.body.detail, "No such postcode: ZZ1 1ZZ.");
  });

  it("reads an XML body, attributes included, before the transform", async () => {
    const atom = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Latest items</title>
<entry><id>http://www.legislation.gov.uk/id/ukpga/2025/1</id><link rel="self" href="http://www.legislation.gov.uk/ukpga/2025/1"/></entry>
<entry><id>http://www.legislation.gov.uk/id/ukpga/2025/2</id><link rel="self" href="http://www.legislation.gov.uk/ukpga/2025/2"/></entry>
</feed>`;
    nock(ONS).get("/v1/feed").reply(200, atom, { "content-type": "application/atom+xml" });
    const res = await getJson(`${server.url}/v1/demo/feed`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.title, "Latest items");
    assert.deepEqual(res.body.data.entries.map((e: { link: string }) => e.link), ["http://www.legislation.gov.uk/ukpga/2025/1", "http://www.legislation.gov.uk/ukpga/2025/2"]);
  });
});

describe("endpoint files at start-up", () => {
  function endpointsWith(files: Record<string, string>): string {
    const dir = tempDir("pda-endpoints-");
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    return dir;
  }
  const group = "title: Test\ndescription: A test group\n";
  const good = `operation: thing
summary: A thing
description: A thing from ONS
price: 0.001
upstream:
  source: ons
  path: /data
examples:
  - params: {}
`;

  it("a maintainer adds an endpoint with one YAML file and no code", async () => {
    const dir = endpointsWith({ "test/_group.yaml": group, "test/thing.yaml": good });
    const reg = await loadRegistry({ rootDir: ROOT, endpointsDir: dir });
    assert.equal(reg.find("test", "thing")?.toolName, "test__thing");
  });

  it("lets an operator resize a group's or an endpoint's free allowance with ALLOWANCE_ variables", async () => {
    const dir = endpointsWith({ "test/_group.yaml": group, "test/thing.yaml": good });
    const plain = await loadRegistry({ rootDir: ROOT, endpointsDir: dir, env: {} });
    assert.deepEqual(plain.find("test", "thing")!.buckets, [{ id: "group:test", anonymous: 50, key: 500 }]);
    const resized = await loadRegistry({ rootDir: ROOT, endpointsDir: dir, env: { ALLOWANCE_TEST: "7/70", ALLOWANCE_TEST__THING: "1/2" } });
    assert.deepEqual(resized.find("test", "thing")!.buckets, [{ id: "group:test", anonymous: 7, key: 70 }, { id: "endpoint:test/thing", anonymous: 1, key: 2 }]);
    await assert.rejects(loadRegistry({ rootDir: ROOT, endpointsDir: dir, env: { ALLOWANCE_TEST: "lots" } }), /ALLOWANCE_TEST must be "<calls a day without a key>\/<calls a day with a key>"/);
  });

  const broken: [string, string, RegExp][] = [
    ["a price that is not a number", good.replace("0.001", "cheap"), /test\/thing\.yaml: price must be number/],
    ["an unknown field", good + "colour: red\n", /test\/thing\.yaml: \(top level\) has an unknown key "colour"/],
    ["an unknown source", good.replace("source: ons", "source: nowhere"), /thing\.yaml: upstream source "nowhere" is not declared/],
    ["a template naming no parameter", good.replace("path: /data", "path: /data/{series}"), /uses \{series\}, which is neither a param nor a var/],
    ["a transform that is not JSONata", good + "transform: \"{ 'a': \"\n", /thing\.yaml: .*/],
    ["no examples", good.replace("examples:\n  - params: {}\n", ""), /must have required property 'examples'/],
    ["a file name that does not match", good.replace("operation: thing", "operation: other"), /must match the file name/],
    ["both a plugin and an upstream", good + "plugin: x.y\n", /test\/thing\.yaml: \(top level\) must declare either `upstream` or `plugin`, not both/],
  ];
  describe("plugin: names a function of the group's own folder, plugins/<group>/", () => {
    const withPlugin = (name: string) => good.replace("upstream:\n  source: ons\n  path: /data\n", `plugin: ${name}\n`);
    const load = (name: string) =>
      loadRegistry({ rootDir: ROOT, endpointsDir: endpointsWith({ "uk-property/_group.yaml": group, "uk-property/thing.yaml": withPlugin(name) }) });
    it("<function> is index.ts's, <file>.<function> is <file>.ts's", async () => {
      const { leaseLength } = await import("../../plugins/uk-property/index.ts");
      const { areaReport } = await import("../../plugins/uk-property/area.ts");
      assert.equal((await load("leaseLength")).find("uk-property", "thing")!.plugin!.fn, leaseLength);
      assert.equal((await load("area.areaReport")).find("uk-property", "thing")!.plugin!.fn, areaReport);
    });
    it("stops with the file and the function it cannot find", async () => {
      await assert.rejects(load("nothing"), /uk-property\/thing\.yaml: plugins\/uk-property\/index\.ts exports no function "nothing"/);
      await assert.rejects(load("area.nothing"), /plugins\/uk-property\/area\.ts exports no function "nothing"/);
      // The group's name is not repeated: uk-property.leaseLength would be a file uk-property.ts in the group's folder.
      await assert.rejects(load("uk-property.leaseLength"), /plugin file plugins\/uk-property\/uk-property\.ts does not exist/);
    });
  });

  for (const [what, text, message] of broken) {
    it(`stops with the file's path and the problem: ${what}`, async () => {
      const dir = endpointsWith({ "test/_group.yaml": group, "test/thing.yaml": text });
      await assert.rejects(loadRegistry({ rootDir: ROOT, endpointsDir: dir }), (e: Error) => {
        assert.match(e.message, /^Endpoint files are not valid/);
        assert.match(e.message, message);
        return true;
      });
    });
  }
});

describe("URL template filters", () => {
  it("companyNumber pads a company number to Companies House's 8 characters, keeping its prefix", async () => {
    const { Template } = await import("../../engine/endpoints/template.ts");
    const render = (v: string) => new Template("{n|companyNumber}").render({ params: { n: v }, vars: {}, steps: {} });
    assert.deepEqual(await Promise.all(["2578066", "02578066", "sc12345", "NI 000123", "OC301234", "IP29622R"].map(render)),
      ["02578066", "02578066", "SC012345", "NI000123", "OC301234", "IP29622R"]);
  });
  it("doi strips a resolver prefix and spaces, and a path encodes the slash", async () => {
    const { Template } = await import("../../engine/endpoints/template.ts");
    const render = (v: string) => new Template("/works/{d|doi}").render({ params: { d: v }, vars: {}, steps: {} }, encodeURIComponent);
    assert.deepEqual(await Promise.all(["10.1038/nnano.2014.279", " https://doi.org/10.1038/nnano.2014.279", "http://dx.doi.org/10.1038/X", "doi:10.1038/x", "DOI: 10.1/a?b"].map(render)),
      ["/works/10.1038%2Fnnano.2014.279", "/works/10.1038%2Fnnano.2014.279", "/works/10.1038%2FX", "/works/10.1038%2Fx", "/works/10.1%2Fa%3Fb"]);
  });
});
