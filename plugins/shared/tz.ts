// Time-zone arithmetic on the runtime's Intl (the IANA tz database compiled into Node's ICU; no Temporal in
// Node 24), zone names from @vvo/tzdb and points-to-zone from geo-tz. Shared by time-zones, ip-geolocation and public-holidays.
import type { TimeZone } from "@vvo/tzdb";
import { LRUCache } from "lru-cache";
import { lazy } from "./lazy.ts";

// The zone list and geo-tz's boundaries are read when a call first needs them, not at start-up.
const tzdb = lazy<typeof import("@vvo/tzdb")>("@vvo/tzdb");
let geoTz: typeof import("geo-tz/all") | undefined;
function boundaries(): typeof import("geo-tz/all") {
  if (!geoTz) {
    geoTz = lazy<typeof import("geo-tz/all")>("geo-tz/all")();
    // geo-tz keeps every polygon tile it has read, forever, unless given a store: keep a bounded one.
    geoTz.setCache({ store: new LRUCache<string, object>({ max: 500 }) as unknown as Map<string, unknown> });
  }
  return geoTz;
}

export const TZDATA_VERSION: string | null = process.versions.tz ?? null;
export const BOUNDARIES_ATTRIBUTION = "Time zone boundaries: timezone-boundary-builder, © OpenStreetMap contributors (ODbL 1.0), via geo-tz";

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Intl's own (CLDR, sometimes legacy) ID for a zone, or undefined when Intl does not know it. */
function intlId(id: string): string | undefined {
  try {
    return new Intl.DateTimeFormat("en", { timeZone: id }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

let zones: { list: TimeZone[]; modernByIntl: Map<string, TimeZone> } | undefined;

// Intl answers Europe/Kiev for Europe/Kyiv and Asia/Calcutta for Asia/Kolkata: map its IDs to the modern IANA
// names @vvo/tzdb uses, and keep each modern zone's group of merged or renamed IDs as its aliases.
function zoneList(): { list: TimeZone[]; modernByIntl: Map<string, TimeZone> } {
  if (zones) return zones;
  const list = tzdb().getTimeZones({ includeUtc: true });
  const modernByIntl = new Map<string, TimeZone>();
  for (const z of list) {
    for (const id of [z.name, ...z.group]) {
      const i = intlId(id);
      if (i && !modernByIntl.has(i)) modernByIntl.set(i, z);
    }
    const own = intlId(z.name);
    if (own) modernByIntl.set(own, z);
  }
  return (zones = { list, modernByIntl });
}

export interface Zone {
  /** The modern IANA ID. */
  id: string;
  /** Other IDs that mean this zone (renamed or merged into it). */
  aliases: string[];
  country_code: string | null;
  info: TimeZone | undefined;
}

/** The zone an ID (modern, legacy or alias, any case for the common ones) names; undefined when unknown. */
export function resolveZone(input: string): Zone | undefined {
  const i = intlId(input.trim());
  if (!i) return undefined;
  const info = zoneList().modernByIntl.get(i);
  if (info && (info.name === i || info.group.includes(i) || intlId(info.name) === i)) {
    return { id: info.name, aliases: info.group.filter((g) => g !== info.name), country_code: info.countryCode || null, info };
  }
  return { id: i, aliases: [], country_code: null, info: undefined };
}

export function zonesOfCountry(code: string | undefined): TimeZone[] {
  return zoneList().list.filter((z) => !code || z.countryCode === code);
}

function formatter(tz: string, kind: "offset" | "parts" | "short"): Intl.DateTimeFormat {
  const key = `${kind} ${tz}`;
  let f = formatters.get(key);
  if (!f) {
    f = kind === "offset"
      ? new Intl.DateTimeFormat("en-US", { timeZone: tz, timeZoneName: "longOffset" })
      : kind === "short"
        ? new Intl.DateTimeFormat(tz.startsWith("Europe/") ? "en-GB" : "en-US", { timeZone: tz, timeZoneName: "short" })
        : new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    formatters.set(key, f);
  }
  return f;
}

/** The zone's UTC offset in minutes at an instant (ms). */
export function offsetMinutes(tz: string, ms: number): number {
  const name = formatter(tz, "offset").formatToParts(ms).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

export function formatOffset(min: number): string {
  const a = Math.abs(min);
  return `${min < 0 ? "-" : "+"}${String(Math.floor(a / 60)).padStart(2, "0")}:${String(a % 60).padStart(2, "0")}`;
}

/** "2026-07-01T13:00:00" in the zone. */
export function localTime(tz: string, ms: number): string {
  const p = Object.fromEntries(formatter(tz, "parts").formatToParts(ms).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
}

/** The zone's abbreviation (BST, EDT), or null where it has none but "GMT+3". */
export function abbreviation(tz: string, ms: number): string | null {
  const v = formatter(tz, "short").formatToParts(ms).find((p) => p.type === "timeZoneName")?.value ?? null;
  if (v === "UTC" || v === "GMT") return v;
  return v && !/^(GMT|UTC)[+-]/.test(v) ? v : null;
}

/** Standard (non-DST) offset of the year: the smaller of the January and July offsets. */
function standardOffset(tz: string, ms: number): number {
  const y = new Date(ms).getUTCFullYear();
  return Math.min(offsetMinutes(tz, Date.UTC(y, 0, 1)), offsetMinutes(tz, Date.UTC(y, 6, 1)));
}

export function isDst(tz: string, ms: number): boolean {
  return offsetMinutes(tz, ms) > standardOffset(tz, ms);
}

export const isoInstant = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, "Z");

/** The zone at an instant: local time, offset, abbreviation, DST flag. */
export function zoneAt(tz: string, ms: number) {
  const off = offsetMinutes(tz, ms);
  return { local_time: localTime(tz, ms), utc_offset: formatOffset(off), offset_minutes: off, abbreviation: abbreviation(tz, ms), dst: isDst(tz, ms) };
}

export interface Transition {
  at: number;
  before: number;
  after: number;
}

/** Offset changes in [from, to): 6-hour steps, then a binary search to the millisecond. */
export function transitions(tz: string, from: number, to: number, max = 1000): Transition[] {
  const out: Transition[] = [];
  const STEP = 6 * 3600_000;
  let t = from;
  let off = offsetMinutes(tz, t);
  while (t < to && out.length < max) {
    const next = Math.min(t + STEP, to);
    const offNext = offsetMinutes(tz, next);
    if (offNext !== off) {
      let lo = t;
      let hi = next;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (offsetMinutes(tz, mid) === off) lo = mid;
        else hi = mid;
      }
      out.push({ at: hi, before: off, after: offNext });
    }
    t = next;
    off = offNext;
  }
  return out;
}

export type Disambiguation = "earlier" | "later" | "reject";

/**
 * The instant of a local wall-clock time (ms of the same fields read as UTC) in a zone. In a gap (the clocks
 * jump over it) or an overlap (it happens twice) the caller's rule picks one; `kind` says which case it was.
 */
export function instantOf(tz: string, wallMs: number, rule: Disambiguation): { ms: number; kind: "normal" | "gap" | "overlap" } | { ms: null; kind: "gap" | "overlap" } {
  const offsets = [...new Set([offsetMinutes(tz, wallMs - 86_400_000), offsetMinutes(tz, wallMs), offsetMinutes(tz, wallMs + 86_400_000)])];
  const valid = offsets.map((o) => wallMs - o * 60_000).filter((ms) => localTime(tz, ms) === localTime("UTC", wallMs)).sort((a, b) => a - b);
  const uniq = [...new Set(valid)];
  if (uniq.length === 1) return { ms: uniq[0], kind: "normal" };
  if (uniq.length > 1) {
    if (rule === "reject") return { ms: null, kind: "overlap" };
    return { ms: rule === "earlier" ? uniq[0] : uniq[uniq.length - 1], kind: "overlap" };
  }
  // A gap: read the time with the offsets on either side; the larger offset gives the earlier instant.
  if (rule === "reject") return { ms: null, kind: "gap" };
  const candidates = offsets.map((o) => wallMs - o * 60_000).sort((a, b) => a - b);
  return { ms: rule === "earlier" ? candidates[0] : candidates[candidates.length - 1], kind: "gap" };
}

/** The zone IDs of the polygons containing a point (geo-tz, comprehensive data set). */
export function zonesAtPoint(lat: number, lng: number): string[] {
  return boundaries().find(lat, lng).map((id) => resolveZone(id)?.id ?? id);
}
