// GET /.well-known/x402: every paid resource of the service, in the shape of the x402 v2 discovery resources list
// (x402-specification-v2.md §8 "Discovery API": {x402Version, items: [{resource, type, x402Version, accepts,
// lastUpdated, metadata}], pagination}), each item also with the fields @x402/extensions' DiscoveryResource adds
// (description, mimeType, serviceName, tags, extensions.bazaar).
import fs from "node:fs";
import path from "node:path";
import { bazaarExtension, serviceMetadata } from "../../access/bazaar.ts";
import { exampleCall, exampleQuery } from "../../endpoints/param-examples.ts";
import type { Offers } from "../openapi.ts";
import type { Endpoint, Registry } from "../../endpoints/model.ts";

export interface ResourceList {
  x402Version: 2;
  items: Record<string, unknown>[];
  pagination: { limit: number; offset: number; total: number };
}

/** When the endpoint's file last changed, in Unix seconds (the specification's lastUpdated). */
function lastUpdated(rootDir: string, e: Endpoint): number {
  try {
    return Math.floor(fs.statSync(path.resolve(rootDir, e.file)).mtimeMs / 1000);
  } catch {
    return Math.floor(Date.now() / 1000);
  }
}

function item(e: Endpoint, baseUrl: string, rootDir: string, offers: Offers): Record<string, unknown> {
  return {
    resource: `${baseUrl}${e.path}`,
    type: "http",
    x402Version: 2,
    accepts: offers(e),
    lastUpdated: lastUpdated(rootDir, e),
    mimeType: "application/json",
    ...serviceMetadata(e),
    extensions: { bazaar: bazaarExtension(e, "http") },
    metadata: {
      group: e.group,
      category: e.groupInfo.title,
      price_usd: e.price,
      mcp_tool: e.toolName,
      example: `${baseUrl}${e.path}${exampleQuery(exampleCall(e))}`,
      free_calls_per_day: { without_key: Math.min(...e.buckets.map((b) => b.anonymous)), with_key: Math.min(...e.buckets.map((b) => b.key)) },
    },
  };
}

/** The paid resources (an endpoint served within the free allowance only is not for sale); `offset`/`limit` page it. */
export function x402Resources(registry: Registry, baseUrl: string, rootDir: string, offers: Offers, page: { offset?: number; limit?: number } = {}): ResourceList {
  const paid = [...registry.endpoints.values()].filter((e) => !e.freeOnly);
  const offset = Math.max(0, page.offset ?? 0);
  const limit = Math.max(1, page.limit ?? paid.length);
  return {
    x402Version: 2,
    items: paid.slice(offset, offset + limit).map((e) => item(e, baseUrl, rootDir, offers)),
    pagination: { limit, offset, total: paid.length },
  };
}
