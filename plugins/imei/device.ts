// What the Osmocom TAC database does not state outright, read from what it does: a device type from the brand
// and model name (it has no type field; most of its entries are phones), and a manufacturer type code such as
// NHL-9 or SM-G991B from the model name or its aliases.

export type DeviceType = "phone" | "tablet" | "watch" | "modem";

const TABLET = /\b(ipad|tablet|tab( ?\d+)?|galaxy tab|mediapad|ideatab)\b/i;
const WATCH = /\b(watch|smartwatch)\b/i;
const MODEM = /\b(modem|dongle|usb|module|m2m|router|datablock|data ?card|mifi|hotspot|fleetmodem)\b/i;
/** Makers of cellular modules and modems rather than handsets. */
const MODULE_BRANDS = new Set(["cinterion", "telit", "sierra wireless", "wavecom", "simcom", "option", "enfora l.p.", "novatel", "quectel", "u-blox", "ipwireless"]);

export function deviceType(brand: string, model: string): DeviceType {
  if (TABLET.test(model)) return "tablet";
  if (WATCH.test(model)) return "watch";
  if (MODEM.test(model) || MODULE_BRANDS.has(brand.toLowerCase())) return "modem";
  return "phone";
}

/** A hyphenated upper-case code with a digit (NHL-9, GT-P3100), or an Apple model number (A1522). */
const TYPE_CODE = /^((?=[A-Z0-9-]*\d)[A-Z0-9]+(-[A-Z0-9]+)+|A\d{4})$/;

/** The first type code among the model name's first word and the aliases, or null. */
export function modelCode(model: string, aliases: string[]): string | null {
  const candidates = [model.split(/\s+/)[0], ...aliases.map((a) => a.replace(/\s*\(.*\)$/, ""))];
  return candidates.find((c) => TYPE_CODE.test(c)) ?? null;
}
