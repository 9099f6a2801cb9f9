// URL templates: {name} and {name|filter|filter} take a parameter (or a var); {= expr} is JSONata over
// the call's scope, as $params, $vars, $today (YYYY-MM-DD), $now()/$millis() (both from engine/basics/clock.ts) and $steps (the bodies of earlier
// upstream steps, by their `as`). A template whose value is missing renders as "".
import jsonata from "jsonata";
import { boeDate } from "../basics/dates.ts";
import { expression } from "./transform-helpers.ts";

export type Scope = { params: Record<string, unknown>; vars: Record<string, unknown>; steps: Record<string, unknown>; today?: string; reply?: unknown; now?: unknown; millis?: unknown;
  /** In a for_each step: the item and its position; in a paginate step's `more`: the pages read. */
  item?: unknown; index?: number; pages?: number };

const FILTERS: Record<string, (v: string) => string> = {
  upper: (v) => v.toUpperCase(),
  lower: (v) => v.toLowerCase(),
  trim: (v) => v.trim(),
  boeDate: (v) => boeDate(v),
  nospace: (v) => v.replace(/\s+/g, ""),
  digits: (v) => v.replace(/\D+/g, ""),
  // A DOI as registries key it: without a resolver prefix (https://doi.org/, doi:) or surrounding space.
  doi: (v) => v.trim().replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i, ""),
  // A UK company number as Companies House keys it: 8 characters, any letter prefix (SC, NI, OC, FC…) kept and
  // the digits zero-padded ("sc12345" -> "SC012345", "2578066" -> "02578066").
  companyNumber: (v) => {
    const t = v.replace(/\s+/g, "").toUpperCase();
    const m = /^([A-Z]*)(\d+)([A-Z]?)$/.exec(t);
    return m ? m[1] + m[2].padStart(8 - m[1].length - m[3].length, "0") + m[3] : t;
  },
};

export const TEMPLATE_FILTERS = Object.keys(FILTERS);

type Part = string | { name: string; filters: string[] } | { expr: jsonata.Expression; source: string };

export class Template {
  private readonly parts: Part[];
  readonly names: string[];
  readonly source: string;

  constructor(source: string) {
    this.source = source;
    this.parts = [];
    this.names = [];
    const re = /\{(=[^}]+|[A-Za-z_][A-Za-z0-9_]*(?:\|[A-Za-z]+)*)\}/g;
    let last = 0;
    for (let m = re.exec(source); m; m = re.exec(source)) {
      if (m.index > last) this.parts.push(source.slice(last, m.index));
      const body = m[1];
      if (body.startsWith("=")) {
        this.parts.push({ expr: expression(body.slice(1).trim()), source: body });
      } else {
        const [name, ...filters] = body.split("|");
        for (const f of filters) if (!FILTERS[f]) throw new Error(`unknown template filter "${f}" in "${source}" (known: ${TEMPLATE_FILTERS.join(", ")})`);
        this.parts.push({ name, filters });
        this.names.push(name);
      }
      last = re.lastIndex;
    }
    if (last < source.length) this.parts.push(source.slice(last));
  }

  /** The template is one {= expr} and nothing else: its value may be any JSON type. */
  get single(): boolean {
    return this.parts.length === 1 && typeof this.parts[0] !== "string" && "expr" in this.parts[0];
  }

  /** The value of a single-expression template (see `single`). */
  async value(scope: Scope): Promise<unknown> {
    const part = this.parts[0] as { expr: jsonata.Expression };
    const v = await part.expr.evaluate(scope, scope);
    return v === undefined ? null : JSON.parse(JSON.stringify(v));
  }

  get isStatic(): boolean {
    return this.parts.every((p) => typeof p === "string");
  }

  /** encode: applied to every substituted value (encodeURIComponent for paths; none for query values). */
  async render(scope: Scope, encode: (v: string) => string = (v) => v): Promise<string> {
    let out = "";
    for (const part of this.parts) {
      if (typeof part === "string") out += part;
      else if ("name" in part) {
        const raw = part.name in scope.params ? scope.params[part.name] : scope.vars[part.name];
        if (raw === undefined || raw === null) continue;
        let value = Array.isArray(raw) ? raw.join(",") : String(raw);
        for (const f of part.filters) value = FILTERS[f](value);
        out += encode(value);
      } else {
        const value = await part.expr.evaluate(scope, scope);
        if (value !== undefined && value !== null) out += String(value);
      }
    }
    return out;
  }
}
