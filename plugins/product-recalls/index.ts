// product-recalls/search: one question to every recall source at once. The sources are asked concurrently through
// the shared upstream client (cache, retries, rate limits); their answers are cut to the group's compact shape,
// merged newest first, and a source that fails is named in `failures` instead of failing the call.
import { Problem } from "../../engine/basics/problem.ts";
import type { PluginContext, PluginRequest } from "../../engine/endpoints/plugin.ts";

export interface Recall {
  id: string;
  title: string;
  type: string;
  hazard: string | null;
  product: string | null;
  brand: string | null;
  published_date: string | null;
  url: string;
  source: string;
}

interface Query { q?: string; since: string; limit: number }
type Row = Record<string, any>;

const GOVUK_FIELDS = "title,link,public_timestamp,description";
const FSA_TYPES: Record<string, string> = { AA: "allergy", PRIN: "recall", FAFA: "action" };

// What each source's real answer looks like, as the single-source endpoints state it (uk-medical.yaml, uk-food.yaml,
// us-products.yaml): anything else is that source's failure, named in `failures`.
const GOVUK_ANSWER = { test: "$exists(results) and $exists(total)" };
const FSA_ANSWER = { test: "$exists(meta) and $exists(items)" };
const CPSC_ANSWER = { test: "$type($) = 'array' and $count($) > 0 and $count($[$exists(RecallNumber)]) = $count($)" };

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);
const day = (v: unknown): string | null => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : null);
const words = (q: Query, ...parts: unknown[]) => !q.q || parts.join(" ").toLowerCase().includes(q.q.toLowerCase());

function govuk(format: string, q: Query, extra: Record<string, string> = {}): PluginRequest {
  const query: Record<string, string> = { filter_format: format, ...extra };
  if (q.q) query.q = q.q;
  query.filter_public_timestamp = `from:${q.since}`;
  Object.assign(query, { fields: GOVUK_FIELDS, order: "-public_timestamp", count: String(q.limit) });
  return { source: "govuk", path: "/api/search.json", query, cacheMs: 15 * 60_000, expect: GOVUK_ANSWER };
}

function fromGovuk(body: any, source: string, type: string): Recall[] {
  if (!Array.isArray(body?.results)) throw new Error("no results in the GOV.UK answer");
  return body.results.map((r: Row) => ({
    id: String(r.link).split("/").at(-1)!, title: r.title, type, hazard: null, product: null, brand: null,
    published_date: day(r.public_timestamp), url: `https://www.gov.uk${r.link}`, source,
  }));
}

/** Each source: the requests it needs and how its bodies become compact recalls. */
const SOURCES: Record<string, { requests(q: Query): PluginRequest[]; read(bodies: any[], q: Query): Recall[] }> = {
  "uk-food": {
    requests: (q) => [{ source: "fsa", path: "/food-alerts/id", query: { since: q.since, _limit: String(q.q ? 100 : q.limit), _sort: "-created" }, cacheMs: 15 * 60_000, expect: FSA_ANSWER }],
    read: ([body], q) => {
      if (!Array.isArray(body?.items)) throw new Error("no items in the FSA answer");
      return body.items
        .filter((a: Row) => words(q, a.title, ...(a.productDetails ?? []).map((p: Row) => p.productName)))
        .map((a: Row) => {
          const code = String((a.type ?? []).find((t: string) => !t.endsWith("/Alert")) ?? "").split("/").at(-1) ?? "";
          return {
            id: a.notation, title: a.title, type: FSA_TYPES[code] ?? code.toLowerCase(),
            hazard: text(a.problem?.[0]?.riskStatement), product: text((a.productDetails ?? []).map((p: Row) => p.productName).join("; ")),
            brand: text(a.reportingBusiness?.commonName), published_date: day(a.created), url: a.alertURL, source: "uk-food",
          };
        });
    },
  },
  "uk-medical": {
    requests: (q) => [govuk("medical_safety_alert", q)],
    read: ([body]) => fromGovuk(body, "uk-medical", "medical-alert"),
  },
  "uk-products": {
    requests: (q) => [govuk("product_safety_alert_report_recall", q)],
    read: ([body]) => fromGovuk(body, "uk-products", "product-safety-alert"),
  },
  "uk-accidents": {
    requests: (q) => ["aaib_report", "maib_report", "raib_report"].map((f) => govuk(f, q)),
    read: (bodies) => bodies.flatMap((b) => fromGovuk(b, "uk-accidents", "accident-report")),
  },
  "us-products": {
    requests: (q) => [{ source: "cpsc", path: "/RestWebServices/Recall", query: { format: "json", RecallDateStart: q.since }, cacheMs: 60 * 60_000, expect: CPSC_ANSWER }],
    read: ([body], q) => {
      if (!Array.isArray(body)) throw new Error("the CPSC answer is not a list of recalls");
      return body
        .filter((r: Row) => words(q, r.Title, r.Description, ...(r.Products ?? []).map((p: Row) => p.Name)))
        .map((r: Row) => ({
          id: r.RecallNumber, title: r.Title, type: "recall", hazard: text(r.Hazards?.[0]?.Name),
          product: text((r.Products ?? []).map((p: Row) => p.Name).join("; ")), brand: text(r.Manufacturers?.[0]?.Name),
          published_date: day(r.RecallDate), url: r.URL, source: "us-products",
        }));
    },
  },
};

export const SOURCE_NAMES = Object.keys(SOURCES);

export async function search(ctx: PluginContext) {
  const q: Query = { q: ctx.params.q as string | undefined, since: ctx.params.since as string, limit: ctx.params.limit as number };
  const names = (ctx.params.sources as string[] | undefined) ?? SOURCE_NAMES;
  const settled = await Promise.allSettled(names.map(async (name) => {
    const s = SOURCES[name];
    return s.read(await Promise.all(s.requests(q).map((r) => ctx.fetch(r))), q);
  }));
  const failures = settled.flatMap((r, i) => (r.status === "rejected" ? [{ source: names[i], error: String((r.reason as Error)?.message ?? r.reason).slice(0, 200) }] : []));
  if (failures.length === names.length) {
    throw new Problem({ status: 502, code: "upstream_error", detail: `Every recall source failed (${failures.map((f) => `${f.source}: ${f.error}`).join("; ")}). The call was not charged.` });
  }
  const all = settled.flatMap((r) => (r.status === "fulfilled" ? r.value : []))
    .filter((r) => !r.published_date || r.published_date >= q.since)
    .sort((a, b) => (b.published_date ?? "").localeCompare(a.published_date ?? ""));
  const recalls = all.slice(0, q.limit);
  return {
    query: { q: q.q ?? null, since: q.since, limit: q.limit, sources: names },
    total: null,
    count: recalls.length,
    recalls,
    failures,
    ...(recalls.length === 0 ? { note: "None of the sources asked has recalls or alerts matching this question." } : {}),
  };
}
