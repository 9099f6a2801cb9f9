// A hostile upstream for every endpoint at once: each upstream host (nock, matched by a host pattern) answers
// HTTP 200 with one junk body; and the verdict on what an endpoint made of it.
import fs from "node:fs";
import path from "node:path";
import nock from "nock";
import YAML from "yaml";
import { ROOT, fixtureFile, mockTokenRequest } from "./helpers.ts";
import type { Endpoint, Example, Registry } from "../../engine/endpoints/model.ts";

export interface Junk {
  name: string;
  body: string;
  /** The content type it is served with (besides the endpoint's own, when that differs); empty: the endpoint's own. */
  type?: string;
  /** An answer made of this junk has a string (or a key) that is one of `whole`, or has one of `within` in its text. */
  whole: string[];
  within: string[];
}

const MAINTENANCE_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Service unavailable</title></head>
<body><h1>We are down for scheduled maintenance</h1><p>Please try again later.</p></body></html>
`;

/** The bodies every upstream answers in turn, always with status 200. */
export const JUNK: Junk[] = [
  { name: "{}", body: "{}", type: "application/json", whole: ["{}"], within: [] },
  { name: '{"foo":1}', body: '{"foo":1}', type: "application/json", whole: ["foo", '{"foo":1}'], within: [] },
  { name: "[]", body: "[]", type: "application/json", whole: ["[]"], within: [] },
  { name: "null", body: "null", type: "application/json", whole: ["null"], within: [] },
  { name: '"str"', body: '"str"', type: "application/json", whole: ["str", '"str"'], within: [] },
  { name: "html page", body: MAINTENANCE_PAGE, type: "text/html; charset=utf-8", whole: [], within: ["scheduled maintenance", "<html", "<!doctype"] },
  { name: "empty body", body: "", whole: [], within: [] },
  { name: "truncated json", body: '{"results": [{"id": "junkcut-1", "name": "junkcut-na', type: "application/json", whole: [], within: ["junkcut"] },
  { name: "truncated xml", body: '<?xml version="1.0" encoding="UTF-8"?>\n<results><item id="junkcut-1"><name>junkcut-na', type: "application/xml", whole: [], within: ["junkcut"] },
  { name: "truncated csv", body: "id,name,date,value\njunkcut-1,junkcut-name,2024-01-0", type: "text/csv", whole: [], within: ["junkcut"] },
];

const FORMAT_TYPES: Record<string, string> = { csv: "text/csv", json: "application/json", xml: "application/xml", html: "text/html", txt: "text/plain" };

/** What every upstream answers now, and how many requests reached it. */
export interface Serving {
  body: string;
  type: string;
  requests: number;
}

/**
 * Every upstream host answers `serving` with status 200 (GET, POST, HEAD, any path and query). OAuth2 token services
 * still grant the stand-in token, so that the main request is reached. Loopback (the server under test) is left alone.
 */
export function hostileUpstreams(registry: Registry, serving: Serving): void {
  const reply = () => {
    serving.requests++;
    return [200, serving.body, { "content-type": serving.type }] as [number, string, Record<string, string>];
  };
  const catchAll = (scope: nock.Scope) => {
    for (const method of ["GET", "POST", "HEAD"]) scope.intercept(/.*/, method).query(true).reply(reply);
  };
  // nock answers a host from the first scope that matches it: a token service's host also serves the API (HMRC).
  for (const source of registry.sources.values()) {
    if (source.auth?.type !== "oauth2") continue;
    const scope = mockTokenRequest(source).persist();
    catchAll(scope);
  }
  catchAll(nock(/^https?:\/\/(?!(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$)/).persist());
}

/** The example the hostile run asks with: the first that answers 200, preferring one that reaches an upstream. */
export function hostileExample(endpoint: Endpoint): Example {
  const ok = endpoint.examples.filter((e) => (e.status ?? 200) === 200);
  return ok.find((e) => e.fixtures?.length) ?? ok[0] ?? endpoint.examples[0];
}

/** The content type of the endpoint's own upstream answers (its example's first recorded answer). */
export function ownType(example: Example): string {
  const f = example.fixtures?.find((x) => (x.status ?? 200) === 200) ?? example.fixtures?.[0];
  return (f && (f.content_type ?? FORMAT_TYPES[path.extname(f.file).slice(1)])) ?? "application/json";
}

/** The content types a junk body is served with: its own, and the endpoint's when that differs. */
export function servedAs(junk: Junk, own: string): { label: string; type: string }[] {
  const natural = junk.type ?? own;
  return [{ label: junk.name, type: natural }, ...(natural === own ? [] : [{ label: `${junk.name} as ${own}`, type: own }])];
}

/** A body as compared with another: JSON in one canonical spelling, any other text trimmed. */
function canonical(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text.trim();
  }
}

/**
 * The junk bodies that are this endpoint's upstream's own real answer: a recorded 200 of one of its examples is the
 * same body (police.uk answers [] for a month without crimes). For those, "nothing found" (a 404, an empty 200) is right.
 */
function realAnswersAmong(endpoint: Endpoint): Set<string> {
  const recorded = new Set(endpoint.examples.flatMap((e) => e.fixtures ?? []).filter((f) => (f.status ?? 200) === 200)
    .map((f) => canonical(fs.readFileSync(fixtureFile(f.file, endpoint.group), "utf8"))));
  return new Set(JUNK.filter((j) => recorded.has(canonical(j.body))).map((j) => j.name));
}

/** Whether the endpoint's upstream is the page at a caller's URL (web-reader, seo-tools): any body is then the real answer. */
const readsCallersPage = (endpoint: Endpoint) => endpoint.examples.some((e) => e.fixtures?.some((f) => f.origin));

/** What a call made of the junk. */
export interface Outcome {
  status: number;
  code?: string;
  data?: unknown;
  charged: boolean;
}

/**
 * The words the endpoint itself writes (its file but its examples, its group's file, its plugin's code): an answer's
 * string made only of these and of the call's parameters carries nothing from an upstream.
 */
function ownWords(endpoint: Endpoint): Set<string> {
  const { examples: _examples, ...definition } = YAML.parse(fs.readFileSync(path.join(ROOT, endpoint.file), "utf8")) as Record<string, unknown>;
  const texts = [JSON.stringify(definition), fs.readFileSync(path.join(ROOT, "endpoints", endpoint.group, "_group.yaml"), "utf8")];
  if (endpoint.plugin) {
    const dir = path.join(ROOT, "plugins", endpoint.group);
    texts.push(...fs.readdirSync(dir, { recursive: true }).map((f) => path.join(dir, String(f))).filter((f) => f.endsWith(".ts")).map((f) => fs.readFileSync(f, "utf8")));
  }
  return new Set(texts.flatMap(words));
}

/** A date or an instant, which an endpoint computes from its clock or parameters (a period's start). */
const DATE = /^\d{4}(-\d{2}(-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?)?)?$/;
const words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/**
 * Whether an answer carries nothing an upstream said: null, empty lists and objects, zeros, booleans, dates, and
 * strings whose words echo the call's parameters or are the endpoint's own. An answer made only of these is empty.
 */
function hollow(value: unknown, echoes: string[], own: Set<string>): boolean {
  if (value === null || value === undefined || typeof value === "boolean") return true;
  if (typeof value === "number") return value === 0 || echoes.includes(String(value));
  if (typeof value === "string") return DATE.test(value) || words(value).every((w) => own.has(w) || echoes.some((e) => e.includes(w)));
  if (Array.isArray(value)) return value.every((v) => hollow(v, echoes, own));
  return Object.values(value as object).every((v) => hollow(v, echoes, own));
}

/** The junk's mark the answer carries, if any. */
function junkIn(value: unknown, junk: Junk): string | undefined {
  const all = strings(value).map((s) => s.toLowerCase());
  return junk.whole.find((m) => all.includes(m)) ?? junk.within.find((m) => all.some((s) => s.includes(m)));
}

/** Every string in a value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

/** The params a call sends and the engine fills in (defaults), as letters and digits only (BH1 3QR: bh13qr). */
function echoesOf(endpoint: Endpoint, params: Record<string, unknown>): string[] {
  const values = [...Object.values(params), ...Object.values(endpoint.params).map((p) => p.default)].flat();
  return values.filter((v) => v !== undefined && v !== null).map((v) => words(String(v)).join("")).filter(Boolean);
}

/**
 * What is wrong with what the endpoint made of a junk body, or undefined: a wrong charge; a 500 (any status the engine
 * does not give an upstream fault); a 4xx, which asserts something about the caller's request or record; a charged
 * 200 that is empty or made of the junk. A 502, 503 or 504 is the expected answer. "Nothing found" (a 404 not_found,
 * an empty 200) is right where the junk is the upstream's own real answer; any answer is, where the upstream is
 * the page at the caller's URL.
 */
export function judgeFor(endpoint: Endpoint, example: Example): (o: Outcome, junk: Junk) => string | undefined {
  const real = realAnswersAmong(endpoint);
  const callersPage = readsCallersPage(endpoint);
  const echoes = echoesOf(endpoint, example.params);
  const own = ownWords(endpoint);
  return (o, junk) => {
    if (o.charged !== (o.status === 200)) return `charged ${o.charged} with status ${o.status}`;
    if ([502, 503, 504].includes(o.status)) return undefined;
    if (o.status >= 500) return `${o.status} ${o.code ?? ""}`.trim();
    if (callersPage) return undefined;
    if (o.status === 404 && o.code === "not_found") return real.has(junk.name) ? undefined : "404 not_found";
    if (o.status !== 200) return `${o.status} ${o.code ?? ""}`.trim();
    const mark = junkIn(o.data, junk);
    if (mark) return `200 made of the junk (${JSON.stringify(mark)})`;
    if (!real.has(junk.name) && hollow(o.data, echoes, own)) return "200 empty";
    return undefined;
  };
}
