// The sanctions-adjacent group's computed endpoints: the curated FATF, EU high-risk and OFAC comprehensive-embargo
// country lists (country-lists.yaml, committed and dated), a country's status on each, and the OFAC non-SDN
// (consolidated) lists read from the sanctions dataset. The Companies House endpoints are plain YAML.
import fs from "node:fs";
import { parse as parseYaml } from "yaml";
import { badParam } from "../../engine/basics/problem.ts";
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import type { ParamValues } from "../../engine/endpoints/params.ts";
import type { Entry } from "../sanctions/types.ts";

interface Country {
  iso2: string;
  name: string;
  action?: string;
  added?: string;
  program?: string;
  regions_only?: boolean;
}

/** A dated published text the list was checked against. */
interface Check {
  url: string;
  date: string;
  says: string;
}

interface Lists {
  fatf: { plenary: string; published: string; confirmed: boolean; transcribed_from: string; verified_against: Check[]; pending: string; source_url: string; call_for_action: Country[]; increased_monitoring: Country[] };
  eu_high_risk: { legal_basis: string; source_url: string; amending_act: string; date_of_application: string; confirmed: boolean; transcribed_from: string; verified_against: Check[]; succession: string; countries: Country[] };
  ofac_comprehensive: { as_of: string; source_url: string; confirmed: boolean; countries: Country[]; note: string };
}

const LISTS = parseYaml(fs.readFileSync(new URL("./country-lists.yaml", import.meta.url), "utf8")) as Lists;
const CURATED = "Transcribed by hand from the publisher's statements (no machine-readable feed exists); check confirmed and as_of, and the publisher's current text, before relying on it.";

const item = (c: Country) => ({ code: c.iso2, name: c.name, since: c.added ?? null });

export function fatf() {
  const f = LISTS.fatf;
  return {
    plenary: f.plenary,
    published_date: f.published,
    confirmed: f.confirmed,
    call_for_action: f.call_for_action.map((c) => ({ ...item(c), action: c.action ?? null })),
    increased_monitoring: f.increased_monitoring.map(item),
    counts: { call_for_action: f.call_for_action.length, increased_monitoring: f.increased_monitoring.length },
    source_url: f.source_url,
    transcribed_from: f.transcribed_from,
    verified_against: f.verified_against,
    pending: f.pending,
    note: `call_for_action is FATF's "black list" (countermeasures or enhanced due diligence as stated), increased_monitoring its "grey list". ${CURATED}`,
  };
}

export function euHighRisk() {
  const e = LISTS.eu_high_risk;
  return {
    legal_basis: e.legal_basis,
    amending_act: e.amending_act,
    date_of_application: e.date_of_application,
    confirmed: e.confirmed,
    count: e.countries.length,
    countries: e.countries.map(item),
    source_url: e.source_url,
    transcribed_from: e.transcribed_from,
    verified_against: e.verified_against,
    succession: e.succession,
    note: `EU obliged entities must apply enhanced due diligence to business relationships and transactions involving these countries. The EU list lags and differs from FATF's. ${CURATED}`,
  };
}

// ---- country-risk

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const ALIASES: Record<string, string> = {
  "north korea": "KP", dprk: "KP", "korea, north": "KP", "south korea": "KR", iran: "IR", burma: "MM", laos: "LA", "lao pdr": "LA",
  "ivory coast": "CI", "cote d'ivoire": "CI", turkey: "TR", "turkiye": "TR", "british virgin islands": "VG", "virgin islands (uk)": "VG",
  drc: "CD", "dr congo": "CD", "congo, democratic republic": "CD", russia: "RU", syria: "SY", "uk": "GB", "united states": "US", usa: "US",
};

const normalise = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/\s+/g, " ").trim();

/** ISO 3166 alpha-2 codes the runtime can name, with their English names. */
const NAMES: Map<string, string> = (() => {
  const m = new Map<string, string>();
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = regionNames.of(code);
      if (name && name !== code && !/^Unknown/.test(name)) m.set(code, name);
    }
  }
  return m;
})();
const BY_NAME = new Map([...NAMES].map(([code, name]) => [normalise(name), code]));

function countryCode(raw: string): string | undefined {
  const t = raw.trim();
  if (/^[A-Za-z]{2}$/.test(t) && NAMES.has(t.toUpperCase())) return t.toUpperCase();
  const n = normalise(t);
  return ALIASES[n] ?? BY_NAME.get(n);
}

/** The country parameter as an ISO code, or a 400: checked before payment by countryRisk.validate. */
function countryParam(params: ParamValues): string {
  const raw = params.country as string;
  const code = countryCode(raw);
  if (!code) throw badParam("country", `country: "${raw}" is not an ISO 3166 alpha-2 code or an English country name this service knows (e.g. IR, "Iran", "North Korea").`);
  return code;
}

countryRisk.validate = (params: ParamValues) => void countryParam(params);

export function countryRisk(ctx: PluginContext) {
  const code = countryParam(ctx.params);
  const f = LISTS.fatf;
  const black = f.call_for_action.find((c) => c.iso2 === code);
  const grey = f.increased_monitoring.find((c) => c.iso2 === code);
  const eu = LISTS.eu_high_risk.countries.find((c) => c.iso2 === code);
  const ofac = LISTS.ofac_comprehensive.countries.find((c) => c.iso2 === code);
  const flags = [black && "FATF call for action", grey && "FATF increased monitoring", eu && "EU high-risk third country", ofac && "OFAC comprehensive embargo"].filter(Boolean);
  return {
    country: { code, name: NAMES.get(code) ?? null },
    listed: flags.length > 0,
    summary: flags.length ? `Listed: ${flags.join("; ")}.` : "On none of the lists held here.",
    fatf: {
      status: black ? "call-for-action" : grey ? "increased-monitoring" : "not-listed",
      action: black?.action ?? null,
      since: (black ?? grey)?.added ?? null,
      as_of: f.plenary,
      confirmed: f.confirmed,
      source_url: f.source_url,
    },
    eu_high_risk: { listed: !!eu, since: eu?.added ?? null, as_of: LISTS.eu_high_risk.date_of_application, confirmed: LISTS.eu_high_risk.confirmed, source_url: LISTS.eu_high_risk.source_url },
    eu_tax_non_cooperative: { listed: null, note: "The EU list of non-cooperative jurisdictions for tax purposes is not held here yet." },
    ofac_comprehensive: {
      listed: !!ofac,
      program: ofac?.program ?? null,
      regions_only: ofac?.regions_only ?? false,
      as_of: LISTS.ofac_comprehensive.as_of,
      confirmed: LISTS.ofac_comprehensive.confirmed,
      source_url: LISTS.ofac_comprehensive.source_url,
    },
    note: `A country's listing says nothing about any person or company in it: screen names with the sanctions group. ${LISTS.ofac_comprehensive.note} ${CURATED}`,
  };
}

// ---- OFAC non-SDN lists

/** The OFAC list each programme tag of CONS_PRIM.CSV belongs to, where the tag alone tells. */
function nonSdnList(programmes: string[]): string | null {
  if (programmes.some((p) => p === "UKRAINE-EO13662")) return "SSI (Sectoral Sanctions Identifications)";
  if (programmes.some((p) => p.startsWith("NS-PLC"))) return "NS-PLC (Palestinian Legislative Council)";
  if (programmes.some((p) => p.startsWith("CMIC"))) return "NS-CMIC (Chinese Military-Industrial Complex companies)";
  if (programmes.some((p) => p.startsWith("FSE"))) return "FSE (Foreign Sanctions Evaders)";
  if (programmes.some((p) => p.startsWith("NS-MBS") || p.startsWith("MBS"))) return "NS-MBS (Menu-Based Sanctions)";
  if (programmes.some((p) => p.includes("CAPTA"))) return "CAPTA (Correspondent Account or Payable-Through Account sanctions)";
  return null;
}

export function ofacSectoral(ctx: PluginContext) {
  const handle = ctx.dataset<unknown>("sanctions");
  const q = (ctx.params.q as string | undefined)?.trim();
  const program = (ctx.params.program as string | undefined)?.toUpperCase();
  const limit = ctx.params.limit as number;
  const rows = handle.db.prepare("SELECT record FROM entries WHERE list = 'us-ofac' AND record LIKE '%Non-SDN%'").all() as { record: string }[];
  const words = q ? normalise(q).split(/[^\p{L}\p{N}]+/u).filter(Boolean) : [];
  if (q !== undefined && !words.length) throw badParam("q", "q must contain letters or digits of a name.");
  const matches = rows.map((r) => JSON.parse(r.record) as Entry).filter((e) => {
    if (program && !e.programmes.some((p) => p.toUpperCase() === program)) return false;
    if (!words.length) return true;
    return e.names.some((n) => {
      const name = normalise(n.name);
      return words.every((w) => name.includes(w));
    });
  });
  const items = matches.slice(0, limit).map((e) => ({
    id: e.list_id,
    name: e.name,
    type: e.type,
    list: nonSdnList(e.programmes),
    programs: e.programmes,
    also_on_sdn: /(^|; )SDN(;|$)/.test(e.sublist ?? ""),
    aliases: e.names.filter((n) => n.kind !== "primary").map((n) => n.name),
    countries: e.countries,
    remarks: e.remarks ?? null,
  }));
  return {
    query: { q: q ?? null, program: program ?? null, limit },
    total: matches.length,
    count: items.length,
    entries: items,
    list_version: { loaded_at: handle.version.loaded_at, version: handle.version.version },
    note: `${matches.length ? "" : "No entry of the OFAC non-SDN (consolidated) lists matches. "}These lists carry restrictions narrower than blocking (debt and equity, correspondent accounts, investment bans); an entry with also_on_sdn is blocked as well. list is read from the programme tags and can be null where they do not tell. Confirm against OFAC's Sanctions List Search before acting.`,
  };
}

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["sanctions"], ofacSectoral);
