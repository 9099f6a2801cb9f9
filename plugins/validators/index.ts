// The validators group: format and check-digit checks computed locally with well-kept libraries (ibantools,
// jsvat-next, isbn3, card-validator, libphonenumber-js, postcode, uk-modulus-checking, validator) and a few
// short in-house check-digit rules (ABA, ISSN, LEI, IMO). Nothing here says that a number, account, company,
// card or mailbox exists: each answer says what a format check cannot tell.
import { Resolver } from "node:dns/promises";
import type * as ibantools from "ibantools";
import type { CountryCode } from "libphonenumber-js/max";
import type UkModulusCheckingType from "uk-modulus-checking";
import type ISBNType from "isbn3";
import type CardValidatorType from "card-validator";
import type ValidatorType from "validator";
import { lazy } from "../shared/lazy.ts";
import { Problem, badParam } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";
import { localPostcodes } from "../shared/postcodes.ts";
import type { ParamValues } from "../../engine/endpoints/params.ts";

// Each library is loaded by the first call that needs it.
const ibans = lazy<typeof ibantools>("ibantools");
const jsvat = lazy<typeof import("jsvat-next")>("jsvat-next");
const isbn = lazy<typeof ISBNType>("isbn3");
const cards = lazy<typeof CardValidatorType>("card-validator");
const phones = lazy<typeof import("libphonenumber-js/max")>("libphonenumber-js/max");
const postcodes = lazy<typeof import("postcode")>("postcode");
const ukModulus = lazy<typeof UkModulusCheckingType>("uk-modulus-checking");
const emails = lazy<typeof ValidatorType>("validator");

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const countryName = (code: string | null | undefined) => {
  if (!code) return null;
  try {
    const name = regionNames.of(code);
    return name && name !== code ? name : null;
  } catch {
    return null;
  }
};
const country = (code: string | null | undefined) => (code ? { code, name: countryName(code) } : null);

/** ibantools' numeric error codes (ValidationErrorsIBAN), as words and text. */
const IBAN_ERRORS: Record<number, [string, string]> = {
  0: ["no-iban", "No IBAN was given."],
  1: ["unknown-country", "The first two letters are not a country that uses IBANs."],
  2: ["wrong-bban-length", "The account part (BBAN) has the wrong length for this country."],
  3: ["wrong-bban-format", "The account part (BBAN) does not match this country's format."],
  4: ["check-digits-not-numeric", "The check digits (characters 3 and 4) are not numbers."],
  5: ["wrong-check-digits", "The check digits do not match the rest of the IBAN (a typing error is likely)."],
  6: ["wrong-national-check-digit", "The national bank, branch or account check digit is wrong."],
  7: ["qr-iban-not-allowed", "A QR-IBAN is not allowed here."],
};

/** UK and Irish BBANs are bank (4 letters) + sort code (6) + account (8); ibantools leaves the account out. */
function sortCodeAccount(code: string | null, parts: ibantools.ExtractIBANResult | undefined): string | undefined {
  if (!parts?.bban || (code !== "GB" && code !== "IE")) return undefined;
  const head = `${parts.bankIdentifier ?? ""}${parts.branchIdentifier ?? ""}`;
  return head.length === 10 && parts.bban.startsWith(head) ? parts.bban.slice(10) : undefined;
}

export function iban(ctx: PluginContext) {
  const input = ctx.params.iban as string;
  const electronic = ibans().electronicFormatIBAN(input) ?? "";
  const result = ibans().validateIBAN(electronic);
  const parts = result.valid ? ibans().extractIBAN(electronic) : undefined;
  const code = /^[A-Z]{2}/.test(electronic) ? electronic.slice(0, 2) : null;
  return {
    input,
    valid: result.valid,
    errors: result.errorCodes.map((c) => ({ code: IBAN_ERRORS[c]?.[0] ?? String(c), text: IBAN_ERRORS[c]?.[1] ?? null })),
    electronic_format: electronic || null,
    print_format: electronic ? ibans().friendlyFormatIBAN(electronic) ?? null : null,
    country: country(code),
    check_digits: /^[A-Z]{2}\d{2}/.test(electronic) ? electronic.slice(2, 4) : null,
    bban: parts?.bban ?? null,
    bank_code: parts?.bankIdentifier ?? null,
    branch_code: parts?.branchIdentifier ?? null,
    account_number: parts?.accountNumber ?? sortCodeAccount(code, parts) ?? null,
    note: "A valid IBAN has the right length, format and check digits for its country; it does not say that the account exists, is open or belongs to anyone in particular.",
  };
}

/** ABA routing number: 3(d1+d4+d7) + 7(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
function abaChecksumOk(code: string): boolean {
  const d = [...code].map(Number);
  return (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8])) % 10 === 0;
}

function abaPrefix(code: string): { valid: boolean; meaning: string | null } {
  const p = Number(code.slice(0, 2));
  if (p === 0) return { valid: true, meaning: "United States government" };
  if (p >= 1 && p <= 12) return { valid: true, meaning: `Federal Reserve district ${p}, bank` };
  if (p >= 21 && p <= 32) return { valid: true, meaning: `Federal Reserve district ${p - 20}, thrift institution` };
  if (p >= 61 && p <= 72) return { valid: true, meaning: `Federal Reserve district ${p - 60}, electronic transactions` };
  if (p === 80) return { valid: true, meaning: "Traveller's cheques" };
  return { valid: false, meaning: null };
}

/** bank-code's parameters, compacted, or a 400 for a code or account of the wrong shape (bankCode.validate, before payment). */
function bankCodeInput(params: ParamValues) {
  const scheme = params.scheme as string;
  const raw = params.code as string;
  const code = raw.replace(/[\s-]/g, "");
  const account = (params.account as string | undefined)?.replace(/[\s-]/g, "");
  if (scheme === "aba") {
    if (account !== undefined) throw badParam("account", "account is only checked with scheme uk-sort-code (a modulus check of a UK account number against its sort code).");
    if (!/^\d{9}$/.test(code)) throw badParam("code", `An ABA routing number has 9 digits (got "${raw}").`);
  } else {
    if (!/^\d{6}$/.test(code)) throw badParam("code", `A UK sort code has 6 digits, e.g. 08-99-99 (got "${raw}").`);
    if (account !== undefined && !/^\d{6,10}$/.test(account)) throw badParam("account", `A UK account number has 6 to 10 digits, usually 8 (got "${params.account}").`);
  }
  return { scheme, raw, code, account };
}

bankCode.validate = (params: ParamValues) => void bankCodeInput(params);

export function bankCode(ctx: PluginContext) {
  const { scheme, raw, code, account } = bankCodeInput(ctx.params);
  if (scheme === "aba") {
    const checksum = abaChecksumOk(code);
    const prefix = abaPrefix(code);
    return {
      scheme, input: raw, valid: checksum && prefix.valid, normalised: code,
      checksum_valid: checksum, prefix_valid: prefix.valid, prefix_meaning: prefix.meaning,
      note: "The check digit and the first two digits are valid for a US routing number; this does not say that a bank uses it today (the Federal Reserve's E-Payments Routing Directory does).",
    };
  }
  let modulus: boolean | null = null;
  if (account !== undefined) modulus = new (ukModulus())({ accountNumber: account, sortCode: code }).isValid();
  return {
    scheme, input: raw, valid: modulus ?? true, normalised: `${code.slice(0, 2)}-${code.slice(2, 4)}-${code.slice(4)}`,
    account: account ?? null,
    modulus_valid: modulus,
    note: account === undefined
      ? "A sort code has no check digit of its own: only its format was checked. Give account to run the Vocalink modulus check of the account number against the sort code."
      : "The Vocalink modulus check catches most typing errors in an account number for its sort code; it does not say that the account exists or is open, nor who holds it (Confirmation of Payee does that).",
  };
}

export function vat(ctx: PluginContext) {
  const input = ctx.params.vat as string;
  const given = ctx.params.country as string | undefined;
  let value = input.replace(/[\s.\-]/g, "").toUpperCase();
  // Greece writes EL in VAT numbers, not its ISO code GR.
  const prefix = given === "GR" ? "EL" : given;
  if (prefix && !value.startsWith(prefix)) value = prefix + value;
  const r = jsvat().checkVAT(value, jsvat().countries);
  const code = r.country?.isoCode.short ?? null;
  return {
    input,
    valid: r.isValid,
    format_valid: r.isValidFormat,
    supported_country: r.isSupportedCountry,
    country: r.country ? { code, name: countryName(code) ?? r.country.name } : null,
    normalised: r.value ?? value,
    registration_checked: false,
    note: "Only the format and check digits were checked. Whether the number is registered and to whom is told by VIES (EU) or HMRC (UK), not by a format check.",
  };
}

// ---- identifiers

/** ISSN check digit: weights 8..2 on the first seven digits, (11 - sum mod 11) mod 11, 10 written X. */
function issnCheck(digits: string): string {
  const sum = [...digits.slice(0, 7)].reduce((s, d, i) => s + Number(d) * (8 - i), 0);
  const c = (11 - (sum % 11)) % 11;
  return c === 10 ? "X" : String(c);
}

/** ISO 7064 MOD 97-10 over letters A=10..Z=35 and digits. */
function mod97(s: string): number {
  let r = 0;
  for (const ch of s) {
    const v = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of v) r = (r * 10 + Number(d)) % 97;
  }
  return r;
}

function identifierResult(type: string, input: string, valid: boolean, normalised: string | null, check: string | null, expected: string | null, extra: Record<string, unknown>, note: string) {
  return { type, input, valid, normalised, check_digit: check, expected_check_digit: valid ? null : expected, ...extra, note };
}

/**
 * The identifier's characters without spaces, dashes and label, or a 400 when there are too many or too few for
 * its type (identifier.validate, before payment); the check digits are the answer's business.
 */
function identifierInput(params: ParamValues): { type: string; input: string; digits: string } {
  const type = params.type as string;
  const input = params.value as string;
  const compact = input.replace(/[\s-]/g, "").toUpperCase();
  switch (type) {
    case "isbn": {
      const digits = compact.replace(/^ISBN(-1[03])?:?/, "");
      if (!/^(\d{9}[\dX]|\d{13})$/.test(digits)) throw badParam("value", `An ISBN has 10 or 13 characters (digits, and X as the last of an ISBN-10); got "${input}".`);
      return { type, input, digits };
    }
    case "issn": {
      const digits = compact.replace(/^ISSN:?/, "");
      if (!/^\d{7}[\dX]$/.test(digits)) throw badParam("value", `An ISSN has 8 characters, e.g. 0378-5955 (got "${input}").`);
      return { type, input, digits };
    }
    case "lei": {
      if (!/^[A-Z0-9]{18}\d{2}$/.test(compact)) throw badParam("value", `An LEI has 20 characters: 18 letters or digits and 2 check digits (got "${input}").`);
      return { type, input, digits: compact };
    }
    default: {
      const digits = compact.replace(/^IMO/, "");
      if (!/^\d{7}$/.test(digits)) throw badParam("value", `An IMO ship number has 7 digits, optionally after "IMO" (got "${input}").`);
      return { type, input, digits };
    }
  }
}

identifier.validate = (params: ParamValues) => void identifierInput(params);

export function identifier(ctx: PluginContext) {
  const { type, input, digits } = identifierInput(ctx.params);
  switch (type) {
    case "isbn": {
      const p = isbn().parse(digits);
      const audit = isbn().audit(digits);
      const expected = digits.length === 10 ? tenCheck(digits) : thirteenCheck(digits);
      const valid = !!p?.isValid;
      return identifierResult(type, input, valid, valid ? p!.isbn13 ?? null : null, digits.slice(-1), expected, {
        isbn10: valid ? p!.isbn10 ?? null : null,
        isbn13: valid ? p!.isbn13 ?? null : null,
        isbn10_hyphenated: valid ? p!.isbn10h ?? null : null,
        isbn13_hyphenated: valid ? p!.isbn13h ?? null : null,
        registration_group: valid ? p!.groupname ?? null : null,
        publisher_prefix: valid && p!.group && p!.publisher ? `${p!.prefix ?? "978"}-${p!.group}-${p!.publisher}` : null,
        problems: valid ? [] : audit.clues.map((c) => c.message),
      }, "Checked against the check digit and the ISBN range table shipped with isbn3; a valid ISBN need not have been assigned to a published book.");
    }
    case "issn": {
      const expected = issnCheck(digits);
      const valid = digits[7] === expected;
      return identifierResult(type, input, valid, valid ? `${digits.slice(0, 4)}-${digits.slice(4)}` : null, digits[7], expected, {},
        "Only the check digit was checked. The ISSN Portal says whether it was assigned; each medium (print, online) has its own ISSN, linked by one ISSN-L.");
    }
    case "lei": {
      const expected = String(98 - mod97(digits.slice(0, 18) + "00")).padStart(2, "0");
      const valid = mod97(digits) === 1;
      return identifierResult(type, input, valid, valid ? digits : null, digits.slice(18), expected, { lou_prefix: digits.slice(0, 4) },
        "Only the ISO 17442 check digits (MOD 97-10) were checked. GLEIF's register says whether the LEI was issued, to whom, and whether it is still renewed (status LAPSED otherwise).");
    }
    default: {
      const sum = [...digits.slice(0, 6)].reduce((s, d, i) => s + Number(d) * (7 - i), 0);
      const expected = String(sum % 10);
      const valid = digits[6] === expected;
      return identifierResult(type, input, valid, valid ? `IMO ${digits}` : null, digits[6], expected, {},
        "Only the check digit was checked. An IMO company number (also 7 digits) uses a different rule; the ship registers say whether a ship has this number.");
    }
  }
}

function tenCheck(d: string): string {
  const sum = [...d.slice(0, 9)].reduce((s, c, i) => s + Number(c) * (10 - i), 0);
  const c = (11 - (sum % 11)) % 11;
  return c === 10 ? "X" : String(c);
}

function thirteenCheck(d: string): string {
  const sum = [...d.slice(0, 12)].reduce((s, c, i) => s + Number(c) * (i % 2 ? 3 : 1), 0);
  return String((10 - (sum % 10)) % 10);
}

// ---- cards

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * The card number's digits, or a 400 (card.validate, before payment). Checked here rather than by a pattern in the
 * endpoint file, whose refusal would quote the number: it is never repeated in an answer or an error.
 */
function cardDigits(params: ParamValues): string {
  const digits = (params.number as string).replace(/[\s-]/g, "");
  if (!/^\d{8,19}$/.test(digits)) throw badParam("number", "A card number has 8 to 19 digits (spaces and dashes are ignored).");
  return digits;
}

card.validate = (params: ParamValues) => void cardDigits(params);

export function card(ctx: PluginContext) {
  // The number itself is never repeated in an answer or an error: only its last four digits.
  const digits = cardDigits(ctx.params);
  const v = cards().number(digits);
  const c = v.card;
  return {
    valid: v.isValid,
    luhn_valid: luhn(digits),
    potentially_valid: v.isPotentiallyValid,
    brand: c?.type ?? null,
    brand_name: c?.niceType ?? null,
    length: digits.length,
    expected_lengths: c?.lengths ?? [],
    security_code: c ? { name: c.code.name, digits: c.code.size } : null,
    last_four: digits.slice(-4),
    note: "valid means the brand's prefix and length and the Luhn check digit agree. It does not say that the card was issued, is active, or has funds; only an authorisation by the card's issuer can. The number is not stored or logged.",
  };
}

// ---- e-mail

type MailVerdict = "has-mx" | "implicit-mx" | "null-mx" | "no-domain" | "unknown";

async function mailHosts(domain: string): Promise<{ verdict: MailVerdict; mx: { host: string; priority: number }[]; detail: string }> {
  const dns = new Resolver({ timeout: 2000, tries: 1 });
  try {
    const mx = (await dns.resolveMx(domain)).sort((a, b) => a.priority - b.priority);
    if (mx.length === 1 && (mx[0].exchange === "" || mx[0].exchange === ".")) {
      return { verdict: "null-mx", mx: [], detail: "The domain publishes a null MX (RFC 7505): it accepts no e-mail." };
    }
    if (mx.length) return { verdict: "has-mx", mx: mx.map((m) => ({ host: m.exchange, priority: m.priority })), detail: "The domain names mail servers (MX records)." };
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOTFOUND") return { verdict: "no-domain", mx: [], detail: "The domain does not exist in DNS: no mail can be delivered." };
    if (code !== "ENODATA") return { verdict: "unknown", mx: [], detail: `DNS did not answer in time (${code ?? "error"}); deliverability is unknown.` };
  }
  try {
    const a = await dns.resolve4(domain).catch(() => dns.resolve6(domain));
    if (a.length) return { verdict: "implicit-mx", mx: [], detail: "No MX record, but the domain has an address: mail goes to it (implicit MX, RFC 5321)." };
  } catch {
    // no address either
  }
  return { verdict: "no-domain", mx: [], detail: "The domain has neither MX nor address records: no mail can be delivered." };
}

export async function email(ctx: PluginContext) {
  const input = (ctx.params.email as string).trim();
  const valid = emails().isEmail(input, { allow_utf8_local_part: true, require_tld: true });
  const at = input.lastIndexOf("@");
  const local = at > 0 ? input.slice(0, at) : null;
  const domain = at > 0 ? input.slice(at + 1).toLowerCase() : null;
  const checked = valid && ctx.params.check_mx === true && domain !== null;
  const mail = checked ? await mailHosts(domain!) : null;
  return {
    input,
    syntax_valid: valid,
    normalised: valid ? `${local}@${domain}` : null,
    local_part: local,
    domain,
    mx_checked: checked,
    deliverability: mail?.verdict ?? null,
    mx_hosts: mail?.mx ?? [],
    detail: mail?.detail ?? null,
    note: "A syntax and DNS check cannot tell whether the mailbox exists or is read: no mail server was contacted (an SMTP probe is unreliable and abusive).",
  };
}

// ---- phone

/** The number and the country it is dialled in; a national number without country is a 400 (phone.validate, before payment). */
function phoneInput(params: ParamValues): { input: string; region: CountryCode | undefined } {
  const input = params.number as string;
  const region = params.country as CountryCode | undefined;
  if (!input.trim().startsWith("+") && !region) {
    throw badParam("country", "A national number (not starting with +) needs country, the ISO code of the country it is dialled in (e.g. GB).");
  }
  return { input, region };
}

phone.validate = (params: ParamValues) => void phoneInput(params);

export function phone(ctx: PluginContext) {
  const { input, region } = phoneInput(ctx.params);
  const p = phones().parsePhoneNumberFromString(input, region ? { defaultCountry: region } : undefined);
  if (!p) {
    return { input, possible: false, valid: false, type: null, country: null, country_calling_code: null, e164: null, national_format: null, international_format: null,
      note: "This is not a phone number in any numbering plan known to libphonenumber." };
  }
  const type = p.getType();
  return {
    input,
    possible: p.isPossible(),
    valid: p.isValid(),
    type: type ? type.toLowerCase() : null,
    country: country(p.country),
    country_calling_code: `+${p.countryCallingCode}`,
    e164: p.number,
    national_format: p.formatNational(),
    international_format: p.formatInternational(),
    note: "valid means the number fits a range its country has allocated (Google's libphonenumber metadata); it does not say that the number is in service, nor who holds it. Numbers ported to another network keep their original type.",
  };
}

// ---- UK postcode


export function ukPostcode(ctx: PluginContext) {
  const input = ctx.params.postcode as string;
  const compact = input.replace(/\s+/g, "").toUpperCase();
  // The Girobank postcode is real but breaks the pattern the library checks.
  const p = compact === "GIR0AA"
    ? { valid: true, postcode: "GIR 0AA", outcode: "GIR", incode: "0AA", area: "GIR", district: "GIR", subDistrict: null, sector: "GIR 0", unit: "AA" }
    : postcodes().parse(compact);
  let exists: boolean | null = null;
  let existsNote = "Not checked: the format is not valid.";
  if (p.valid) {
    const local = localPostcodes(ctx);
    if (!local) existsNote = "Not checked: the Code-Point Open copy is not loaded on this server.";
    else if (p.area === "BT") existsNote = "Not checked: Code-Point Open covers Great Britain, not Northern Ireland (BT).";
    else {
      exists = local.index.lookup(p.postcode!) !== undefined;
      ctx.dataset("gb-postcodes");
      existsNote = exists ? "In the Code-Point Open copy held by this service." : "Not in the Code-Point Open copy held by this service: it may be mistyped, retired, newer than the copy, or a non-geographic (PO box) postcode.";
    }
  }
  return {
    input,
    valid: p.valid,
    postcode: p.postcode ?? null,
    outward: p.outcode ?? null,
    inward: p.incode ?? null,
    area: p.area ?? null,
    district: p.district ?? null,
    sector: p.sector ?? null,
    unit: p.unit ?? null,
    exists,
    exists_note: existsNote,
    note: "valid checks the pattern of a UK postcode; exists says whether Ordnance Survey's Code-Point Open lists it (Great Britain only).",
  };
}
