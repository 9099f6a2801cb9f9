// IMEI numbers (3GPP TS 23.003 section 6.2): an 8-digit Type Allocation Code, a 6-digit serial number and a
// Luhn check digit. The 16-digit IMEISV replaces the check digit with a 2-digit software version number.

export type ImeiFormat = "imei" | "imei-without-check-digit" | "imeisv";

export interface ParsedImei {
  input: string;
  /** The 15-digit IMEI (the check digit computed when the input had none). */
  imei: string;
  format: ImeiFormat;
  /** The Luhn check passed; true when there was no check digit to check (14 digits, IMEISV). */
  valid: boolean;
  luhn_checked: boolean;
  tac: string;
  serial: string;
  check_digit: string;
  /** Only when the given check digit is wrong. */
  expected_check_digit?: string;
  /** IMEISV only: the software version number. */
  svn?: string;
}

/** The Luhn check digit of 14 digits: every second digit from the left doubled (digits of the product summed). */
export function luhnCheckDigit(first14: string): string {
  let sum = 0;
  for (let i = 0; i < first14.length; i++) {
    let v = first14.charCodeAt(i) - 48;
    if (i % 2 === 1) {
      v *= 2;
      if (v > 9) v -= 9;
    }
    sum += v;
  }
  return String((10 - (sum % 10)) % 10);
}

/** What the input becomes once spaces and dashes are taken out. */
export const cleanImei = (raw: string) => raw.replace(/[\s-]/g, "");

/** The parsed IMEI, or undefined when the input is not 14, 15 or 16 digits. */
export function parseImei(raw: string): ParsedImei | undefined {
  const digits = cleanImei(raw);
  if (!/^\d{14,16}$/.test(digits)) return undefined;
  const tac = digits.slice(0, 8);
  const serial = digits.slice(8, 14);
  const expected = luhnCheckDigit(digits.slice(0, 14));
  const base = { input: raw, tac, serial, imei: `${tac}${serial}${expected}` };
  if (digits.length === 14) return { ...base, format: "imei-without-check-digit", valid: true, luhn_checked: false, check_digit: expected };
  if (digits.length === 16) return { ...base, format: "imeisv", valid: true, luhn_checked: false, check_digit: expected, svn: digits.slice(14) };
  const given = digits[14];
  return {
    ...base,
    imei: digits,
    format: "imei",
    valid: given === expected,
    luhn_checked: true,
    check_digit: given,
    ...(given === expected ? {} : { expected_check_digit: expected }),
  };
}
