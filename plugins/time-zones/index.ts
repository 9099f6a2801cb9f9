// The time-zones group: computed from the runtime's Intl (tzdata in Node's ICU) and geo-tz polygons.
import { badParam } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import type { ParamValues } from "../../engine/endpoints/params.ts";
import {
  TZDATA_VERSION, formatOffset, instantOf, isDst, isoInstant, offsetMinutes, resolveZone, transitions as findTransitions,
  zoneAt, zonesAtPoint, zonesOfCountry, type Disambiguation, type Zone,
} from "../shared/tz.ts";

const RULES_NOTE = "Offsets and transitions come from the IANA tz database compiled into this server's runtime (tzdata_version); a government can change its rules with little notice, and a newer release is needed to know.";

/** A zone parameter resolved, or a 400; the validate hooks below run it before payment. */
function zoneParam(params: ParamValues, param: string, raw = params[param] as string): Zone {
  const z = resolveZone(raw);
  if (!z) throw badParam(param, `${param}: "${raw}" is not an IANA time zone ID (e.g. Europe/London, America/New_York, Asia/Kolkata).`);
  return z;
}

/** Why an Etc/GMT±N zone's sign looks inverted, when it is one. */
function etcNote(id: string): string | null {
  const m = /^Etc\/GMT([+-])(\d+)$/.exec(id);
  if (!m) return null;
  return `${id} is a sea zone with a fixed offset: POSIX writes the sign the other way round, so ${id} is UTC${m[1] === "+" ? "-" : "+"}${m[2]}.`;
}

export function forPoint(ctx: PluginContext) {
  const lat = ctx.params.lat as number;
  const lng = ctx.params.lng as number;
  const ids = zonesAtPoint(lat, lng);
  const now = Date.now();
  const zones = ids.map((id) => {
    const z = resolveZone(id);
    return { zone: id, country_code: z?.country_code ?? null, ...zoneAt(id, now), note: etcNote(id) };
  });
  return {
    location: { lat, lng },
    zone: ids[0] ?? null,
    count: zones.length,
    zones,
    at: isoInstant(now),
    tzdata_version: TZDATA_VERSION,
    note: ids.length > 1
      ? "The point lies where several zones' boundaries meet or overlap (a border or a disputed area): all are listed, the first as zone."
      : "The zone's boundaries are drawn from OpenStreetMap; within a few hundred metres of a border the answer can be the neighbour's zone.",
  };
}

now.validate = (params: ParamValues) => void zoneParam(params, "tz");

export function now(ctx: PluginContext) {
  const z = zoneParam(ctx.params, "tz");
  const t = Date.now();
  const next = findTransitions(z.id, t, t + 400 * 86_400_000, 1)[0];
  return {
    zone: z.id,
    aliases: z.aliases,
    at: isoInstant(t),
    ...zoneAt(z.id, t),
    next_transition: next
      ? { at: isoInstant(next.at), utc_offset_before: formatOffset(next.before), utc_offset_after: formatOffset(next.after), dst_after: isDst(z.id, next.at) }
      : null,
    tzdata_version: TZDATA_VERSION,
    note: next ? RULES_NOTE : `${z.id} has no clock change in the next 400 days. ${RULES_NOTE}`,
  };
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Reads convert's parameters into the instant and its zones, refusing (400) a malformed or impossible time, a
 * local time without from, an unknown zone, or a clock-change time with disambiguation reject. Pure, so
 * convert.validate runs it before payment and convert runs it again to answer.
 */
function readConversion(params: ParamValues) {
  const raw = (params.time as string).trim();
  const m = ISO.exec(raw);
  if (!m) throw badParam("time", `time must be ISO 8601, e.g. 2026-07-01T09:30 (local to from) or 2026-07-01T09:30:00Z (got "${raw}").`);
  const [y, mo, d, h, mi, s = "0", frac = "0", off] = m.slice(1);
  const wall = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, Number(frac.padEnd(3, "0")));
  const check = new Date(wall);
  if (check.getUTCMonth() !== +mo - 1 || check.getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59) {
    throw badParam("time", `time ${raw} is not a real date and time.`);
  }
  const rule = params.disambiguation as Disambiguation;
  const fromRaw = params.from as string | undefined;
  const targets = (params.to as string[]).map((t) => zoneParam(params, "to", t));
  let instant: number;
  let from: { zone: string | null; utc_offset: string; local_time: string };
  let applied: string | null = null;
  if (off) {
    const om = /([+-])(\d{2}):?(\d{2})/.exec(off);
    const minutes = om ? (om[1] === "-" ? -1 : 1) * (Number(om[2]) * 60 + Number(om[3])) : 0;
    instant = wall - minutes * 60_000;
    const fz = fromRaw ? zoneParam(params, "from") : undefined;
    if (fz && offsetMinutes(fz.id, instant) !== minutes) {
      throw badParam("from", `time carries the offset ${formatOffset(minutes)}, but ${fz.id} was at ${formatOffset(offsetMinutes(fz.id, instant))} then: give one or the other.`);
    }
    from = { zone: fz?.id ?? null, utc_offset: formatOffset(minutes), local_time: raw.replace(/(Z|[+-]\d{2}:?\d{2})$/i, "").replace(" ", "T") };
  } else {
    if (!fromRaw) throw badParam("from", "from is required when time has no offset (Z or +hh:mm): it names the zone the time is local to.");
    const fz = zoneParam(params, "from");
    const r = instantOf(fz.id, wall, rule);
    if (r.ms === null) {
      throw badParam("time", `${raw} ${r.kind === "gap" ? "does not exist" : "happens twice"} in ${fz.id} (the clocks change then) and disambiguation is reject; use earlier or later.`);
    }
    instant = r.ms;
    if (r.kind !== "normal") applied = rule;
    from = { zone: fz.id, ...pick(zoneAt(fz.id, instant)) };
    if (r.kind === "gap") from.local_time = `${y}-${mo}-${d}T${h}:${mi}:${s.padStart(2, "0")}`;
    if (r.kind !== "normal") {
      return { raw, instant, from, targets, disambiguation: { applied, reason: r.kind === "gap" ? `${raw} does not exist in ${fz.id}: the clocks jump over it. The ${rule} reading was used.` : `${raw} happens twice in ${fz.id}: the clocks go back over it. The ${rule} of the two was used.` } };
    }
  }
  return { raw, instant, from, targets, disambiguation: { applied: null, reason: null } };
}

convert.validate = (params: ParamValues) => void readConversion(params);

export function convert(ctx: PluginContext) {
  const c = readConversion(ctx.params);
  return result(c.raw, c.instant, c.from, c.targets, c.disambiguation);
}

const pick = (z: ReturnType<typeof zoneAt>) => ({ utc_offset: z.utc_offset, local_time: z.local_time });

function result(input: string, instant: number, from: object, targets: Zone[], disambiguation: { applied: string | null; reason: string | null }) {
  return {
    input,
    instant: isoInstant(instant),
    from,
    disambiguation,
    count: targets.length,
    conversions: targets.map((z) => ({ zone: z.id, ...zoneAt(z.id, instant) })),
    tzdata_version: TZDATA_VERSION,
  };
}

const wallClock = (ms: number, offset: number) => new Date(ms + offset * 60_000).toISOString().slice(0, 19);

transitions.validate = (params: ParamValues) => void zoneParam(params, "tz");

export function transitions(ctx: PluginContext) {
  const z = zoneParam(ctx.params, "tz");
  const year = (ctx.params.year as number | undefined) ?? new Date().getUTCFullYear();
  // One day either side, so that a change at midnight UTC on 1 January is not missed; then keep the year's.
  const list = findTransitions(z.id, Date.UTC(year, 0, 1) - 86_400_000, Date.UTC(year + 1, 0, 1) + 86_400_000)
    .filter((t) => new Date(t.at).getUTCFullYear() === year || new Date(t.at + t.after * 60_000).getUTCFullYear() === year);
  return {
    zone: z.id,
    year,
    count: list.length,
    transitions: list.map((t) => ({
      at: isoInstant(t.at),
      // The wall clock at the change, read with the old offset and with the new (01:00 becomes 02:00).
      local_before: wallClock(t.at, t.before),
      local_after: wallClock(t.at, t.after),
      utc_offset_before: formatOffset(t.before),
      utc_offset_after: formatOffset(t.after),
      change_minutes: t.after - t.before,
      dst_after: isDst(z.id, t.at),
    })),
    tzdata_version: TZDATA_VERSION,
    note: list.length ? RULES_NOTE : `${z.id} did not change its clocks in ${year}. ${RULES_NOTE}`,
  };
}

export function zones(ctx: PluginContext) {
  const code = ctx.params.country as string | undefined;
  const list = zonesOfCountry(code);
  const t = Date.now();
  return {
    query: { country: code ?? null },
    count: list.length,
    zones: list.map((z) => ({
      zone: z.name,
      aliases: z.group.filter((g) => g !== z.name),
      country: z.countryCode ? { code: z.countryCode, name: z.countryName } : null,
      name: z.alternativeName,
      example_cities: z.mainCities,
      ...zoneAt(z.name, t),
    })),
    at: isoInstant(t),
    tzdata_version: TZDATA_VERSION,
    note: code && !list.length
      ? `No time zone is listed for ${code}: it is not an ISO 3166 country code with a zone of its own in the tz database.`
      : "Zones that have kept the same clocks since 1970 are merged into the most populous one; the merged IDs are its aliases.",
  };
}
