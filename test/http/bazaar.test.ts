// Every priced endpoint's 402 carries Bazaar discovery metadata (x402 v2 `extensions.bazaar`) that the official
// @x402/extensions package accepts, as a facilitator runs it before cataloguing: over HTTP (the PAYMENT-REQUIRED
// header) and over MCP (the tool error's structuredContent). Free allowances are set to nothing, so that every call
// without payment answers 402 at once and no upstream is asked.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { isValidServiceName, validateAndExtract, validateDiscoveryExtensionSpec, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { PaymentRequired } from "@x402/core/types";
import { ROOT, getJson, startTestServer } from "../support/helpers.ts";
import { callTool, connectMcp } from "../support/mcp-client.ts";
import { exampleCall, exampleQuery } from "../../engine/endpoints/param-examples.ts";
import { serviceMetadata } from "../../engine/access/bazaar.ts";
import type { AccessService } from "../../engine/access/index.ts";
import type { Running } from "../../engine/http/server.ts";
import type { Endpoint } from "../../engine/endpoints/model.ts";

const MAX_HEADER = 8192;
const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const noAllowances = Object.fromEntries(fs.readdirSync(path.join(ROOT, "endpoints"))
  .filter((g) => fs.existsSync(path.join(ROOT, "endpoints", g, "_group.yaml")))
  .map((g) => [`ALLOWANCE_${g.toUpperCase().replace(/-/g, "_")}`, "0/0"]));

/** What a facilitator checks before it catalogues a resource; the failures, in words. */
function bazaarProblems(pr: PaymentRequired, e: Endpoint): string[] {
  const ext = pr.extensions?.bazaar as DiscoveryExtension | undefined;
  if (!ext) return [`${e.key}: no extensions.bazaar`];
  const checked = validateAndExtract(ext);
  const spec = validateDiscoveryExtensionSpec(ext as never);
  return [...(checked.errors ?? []), ...(spec.errors ?? [])].map((m) => `${e.key}: ${m}`);
}

describe("Bazaar discovery metadata on every 402", function () {
  this.timeout(300_000);
  let server: Running;
  let priced: Endpoint[];

  before(async () => {
    server = await startTestServer({ env: { X402_PAY_TO: PAY_TO, ...noAllowances } });
    const datasets = new Set([...server.engine.registry.endpoints.values()].flatMap((e) => e.examples.flatMap((x) => x.datasets ?? [])));
    await server.engine.datasets.loadTestDatasets?.([...datasets]);
    priced = [...server.engine.registry.endpoints.values()].filter((e) => !e.freeOnly);
  });
  after(async () => {
    await server?.close();
  });

  it("over HTTP: valid for @x402/extensions, with the call's parameters, an example answer and the resource's metadata", async () => {
    const problems: string[] = [];
    for (const e of priced) {
      const call = exampleCall(e);
      const res = await getJson(`${server.url}${e.path}${exampleQuery(call)}`);
      if (res.status !== 402) {
        problems.push(`${e.key}: ${res.status} ${res.body?.detail}`);
        continue;
      }
      const header = res.headers.get("payment-required")!;
      // An x402 client echoes the extensions in PAYMENT-SIGNATURE, which must fit in a server's 16 KB of request headers.
      if (header.length > MAX_HEADER) problems.push(`${e.key}: PAYMENT-REQUIRED of ${header.length} bytes`);
      const pr = decodePaymentRequiredHeader(header);
      assert.deepEqual(res.body.payment_required, pr, "the body carries the same PaymentRequired");
      problems.push(...bazaarProblems(pr, e));
      const info = (pr.extensions!.bazaar as DiscoveryExtension).info as any;
      assert.equal(info.input.type, "http");
      assert.equal(info.input.method, "GET");
      assert.deepEqual(info.input.queryParams, call, `${e.key}: the example call's parameters`);
      if (e.output) assert.ok(info.output?.example?.data !== undefined, `${e.key}: an example answer`);
      assert.ok(pr.resource.description && pr.resource.description.length <= 450, `${e.key}: description of at most 450 characters`);
      assert.ok(isValidServiceName(pr.resource.serviceName), `${e.key}: serviceName`);
      assert.ok(pr.resource.tags?.includes(e.group), `${e.key}: tags ${pr.resource.tags}`);
      assert.ok(pr.extensions![PAYMENT_IDENTIFIER], "the payment-identifier extension is still offered");
    }
    assert.deepEqual(problems, []);
  });

  it("the example answer is the endpoint's own: values its first example expects are in it", async () => {
    const e = server.engine.registry.find("bank-of-england", "bank-rate")!;
    const pr = decodePaymentRequiredHeader((await fetch(`${server.url}${e.path}`)).headers.get("payment-required")!);
    const output = (pr.extensions!.bazaar as any).info.output;
    assert.equal(output.type, "json");
    assert.deepEqual(output.example.data.latest, { date: "2025-08-12", value: 4 });
    assert.equal(output.example.data.in_effect_since, "2025-08-07");
    assert.equal(typeof output.example.data.title, "string");
    assert.equal(pr.resource.description, e.summary);
  });

  it("a payment that echoes the largest 402's extensions, as x402 clients do, fits in the server's request headers", async () => {
    let largest = { size: 0, url: "", header: "" };
    for (const e of priced) {
      const url = `${server.url}${e.path}${exampleQuery(exampleCall(e))}`;
      const header = (await fetch(url)).headers.get("payment-required")!;
      if (header.length > largest.size) largest = { size: header.length, url, header };
    }
    const pr = decodePaymentRequiredHeader(largest.header);
    const authorization = { from: `0x${"1".repeat(40)}`, to: pr.accepts[0].payTo, value: pr.accepts[0].amount, validAfter: "0", validBefore: "9999999999", nonce: `0x${"2".repeat(64)}` };
    const payload = { x402Version: 2, resource: pr.resource, accepted: pr.accepts[0], payload: { signature: `0x${"3".repeat(130)}`, authorization }, extensions: pr.extensions };
    const res = await fetch(largest.url, { headers: { "PAYMENT-SIGNATURE": Buffer.from(JSON.stringify(payload)).toString("base64") } });
    assert.notEqual(res.status, 431, `${largest.url}: the echoed payment is refused as too large`);
    assert.ok([402, 503].includes(res.status), `${res.status}: the payment was read (and refused or not verifiable here)`);
  });

  it("a summary longer than 450 characters is cut to 450 for resource.description", () => {
    const e = server.engine.registry.find("bank-of-england", "bank-rate")!;
    const long = serviceMetadata({ ...e, summary: `${"Bank Rate ".repeat(60)}end` });
    assert.equal(long.description.length, 450);
    assert.ok(long.description.startsWith("Bank Rate Bank Rate"));
  });

  it("each 402 gets its own copy: what a client adds to one does not reach the next", () => {
    const e = server.engine.registry.find("bank-of-england", "bank-rate")!;
    const payments = (server.engine.access as AccessService).payments;
    const first = payments.paymentRequired(e, `${server.url}${e.path}`)!;
    ((first.extensions!.bazaar as any).info.input.queryParams as Record<string, unknown>).from = "tampered";
    const next = payments.paymentRequired(e, `${server.url}${e.path}`)!;
    assert.notEqual((next.extensions!.bazaar as any).info.input.queryParams.from, "tampered");
  });

  describe("over MCP", () => {
    let client: Client;
    before(async () => {
      client = await connectMcp(`${server.url}/mcp`);
    });
    after(async () => {
      await client?.close();
    });

    it("a tool's payment-required result carries the MCP form (the tool, its input schema, example arguments), valid too", async () => {
      const problems: string[] = [];
      const byGroup = priced.filter((e) => e.buckets.some((b) => b.id === `group:${e.group}`));
      assert.ok(byGroup.length > 300);
      for (const e of byGroup) {
        const result = await callTool(client, "call_api", { tool: e.toolName, arguments: exampleCall(e) });
        const pr = result.structuredContent as unknown as PaymentRequired;
        if (!result.isError || pr?.x402Version !== 2) {
          problems.push(`${e.key}: ${JSON.stringify(result.structuredContent).slice(0, 200)}`);
          continue;
        }
        problems.push(...bazaarProblems(pr, e));
        const input = ((pr.extensions!.bazaar as DiscoveryExtension).info as any).input;
        assert.deepEqual({ type: input.type, toolName: input.toolName, transport: input.transport }, { type: "mcp", toolName: e.toolName, transport: "streamable-http" });
        assert.deepEqual(input.example, exampleCall(e));
        assert.ok(input.inputSchema.properties, `${e.key}: the tool's input schema`);
      }
      assert.deepEqual(problems, []);
    });

    it("its input schema is the one the tool itself lists", async () => {
      const listing = await connectMcp(`${server.url}/mcp?groups=airports`);
      try {
        const tools = (await listing.listTools()).tools;
        for (const e of priced.filter((x) => x.group === "airports")) {
          const pr = (await callTool(client, e.toolName, exampleCall(e))).structuredContent as unknown as PaymentRequired;
          assert.deepEqual(((pr.extensions!.bazaar as DiscoveryExtension).info as any).input.inputSchema, tools.find((t) => t.name === e.toolName)!.inputSchema, e.key);
        }
      } finally {
        await listing.close();
      }
    });
  });
});
