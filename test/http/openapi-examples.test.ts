// A client that has only /openapi.json can make a first valid call of every priced operation: each parameter it
// needs (the required ones, and one "give one of" set) has an example, and the call sent with those examples gets
// past parameter checks to the payment step (402), never a 400. Each operation also says how it is paid.
import assert from "node:assert/strict";
import { validate, compileErrors } from "@readme/openapi-parser";
import { getJson, startTestServer } from "../support/helpers.ts";
import type { Running } from "../../engine/http/server.ts";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

interface Param { name: string; required: boolean; example?: unknown; style?: string }
interface Operation { operationId: string; parameters: Param[]; "x-payment-info": any; "x-param-sets"?: { one_of?: string[][]; any_of?: string[][] }; "x-free-allowance-only"?: boolean }

/** The query a client builds from the document: required parameters and the first set of x-param-sets with examples. */
function firstCall(op: Operation): { query: URLSearchParams; missing: string[] } {
  const sets = [...(op["x-param-sets"]?.one_of ?? []), ...(op["x-param-sets"]?.any_of ?? [])];
  const has = (name: string) => op.parameters.some((p) => p.name === name && p.example !== undefined);
  const set = sets.find((s) => s.every(has)) ?? sets[0] ?? [];
  const names = [...op.parameters.filter((p) => p.required).map((p) => p.name), ...set];
  const query = new URLSearchParams();
  const missing: string[] = [];
  for (const name of names) {
    const p = op.parameters.find((x) => x.name === name)!;
    if (p.example === undefined) missing.push(name);
    else query.set(name, Array.isArray(p.example) ? p.example.join(",") : String(p.example));
  }
  return { query, missing };
}

describe("OpenAPI: examples and x-payment-info", function () {
  this.timeout(300_000);
  let server: Running;
  let doc: { paths: Record<string, { get: Operation }> };

  before(async () => {
    server = await startTestServer({ env: { X402_PAY_TO: PAY_TO, X402_NETWORKS: "eip155:8453" } });
    const datasets = new Set([...server.engine.registry.endpoints.values()].flatMap((e) => e.examples.flatMap((x) => x.datasets ?? [])));
    await server.engine.datasets.loadTestDatasets?.([...datasets]);
    doc = (await getJson(`${server.url}/openapi.json`)).body;
  });
  after(async () => {
    await server?.close();
  });

  it("is still a valid OpenAPI 3.1 document", async () => {
    const result = await validate(structuredClone(doc) as never);
    assert.ok(result.valid, compileErrors(result));
  });

  it("says how each operation is paid: price, x402 scheme, network and asset, free allowance", () => {
    const op = doc.paths["/v1/bank-of-england/bank-rate"].get;
    const info = op["x-payment-info"];
    assert.deepEqual(info.price, { mode: "fixed", currency: "USD", amount: "0.001" });
    assert.equal(info.scheme, "exact");
    assert.deepEqual(info.networks, ["eip155:8453"]);
    const x402 = info.protocols.find((p: Record<string, unknown>) => p.x402).x402;
    assert.deepEqual({ amount: x402.amount, assets: x402.assets }, { amount: "1000", assets: ["0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"] });
    assert.ok(info.free_allowance[0].per_day_with_key > 0);
    for (const [path, { get }] of Object.entries(doc.paths)) assert.ok(get["x-payment-info"]?.price, `${path} has no x-payment-info`);
  });

  it("every required parameter and every parameter of a \"give one of\" set has an example", () => {
    const missing = Object.entries(doc.paths).flatMap(([path, { get: op }]) => {
      const inSets = new Set([...(op["x-param-sets"]?.one_of ?? []), ...(op["x-param-sets"]?.any_of ?? [])].flat());
      return op.parameters.filter((p) => (p.required || inSets.has(p.name)) && p.example === undefined).map((p) => `${path} ${p.name}`);
    });
    assert.deepEqual(missing, []);
  });

  it("every priced operation, called with only the document's examples, reaches its 402", async () => {
    const priced = Object.entries(doc.paths).filter(([, { get }]) => !get["x-free-allowance-only"]);
    assert.ok(priced.length > 300, `only ${priced.length} priced operations`);
    const failures: string[] = [];
    const queue = [...priced];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [path, { get: op }] = next;
        const { query, missing } = firstCall(op);
        if (missing.length) {
          failures.push(`${path}: no example for ${missing.join(", ")}`);
          continue;
        }
        const url = `${server.url}${path}${query.size ? `?${query}` : ""}`;
        const res = await getJson(url);
        if (res.status !== 402 || !res.headers.get("payment-required")) failures.push(`${path}?${query}: ${res.status} ${res.body?.detail ?? ""}`);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    assert.deepEqual(failures, []);
  });
  it("documents on every operation the request headers a call understands: PAYMENT-SIGNATURE, Idempotency-Key, Test-Example", async () => {
    const missing = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
      ["PAYMENT-SIGNATURE", "Idempotency-Key", "Test-Example"].filter((h) => !item.get.parameters.some((p: Param & { in: string }) => p.name === h && p.in === "header")).map((h) => `${path} ${h}`));
    assert.deepEqual(missing, []);
  });
});
