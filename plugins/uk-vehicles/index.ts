// uk-vehicles plate: an offline decoder of a UK registration's format. Current (2001-) plates say when and roughly
// where the vehicle was first registered; prefix (1983-2001) and suffix (1963-1983) plates carry a year letter;
// older "dateless" plates and Northern Ireland plates (their letters include I or Z) carry no date.

// The DVLA's memory tag regions by the first letter of a current plate (INF104, "Vehicle registration numbers and
// number plates").
const REGIONS: Record<string, string> = {
  A: "Anglia", B: "Birmingham", C: "Cymru (Wales)", D: "Deeside", E: "Essex", F: "Forest and Fens", G: "Garden of England",
  H: "Hampshire and Dorset", K: "Milton Keynes", L: "London", M: "Manchester and Merseyside", N: "North", O: "Oxford",
  P: "Preston", R: "Reading", S: "Scotland", V: "Severn Valley", W: "West of England", Y: "Yorkshire",
};

// Year letters: prefix plates (the letter comes first) from August 1983, suffix plates (last) from 1963.
const PREFIX: Record<string, [string, string]> = {
  A: ["1983-08", "1984-07"], B: ["1984-08", "1985-07"], C: ["1985-08", "1986-07"], D: ["1986-08", "1987-07"], E: ["1987-08", "1988-07"],
  F: ["1988-08", "1989-07"], G: ["1989-08", "1990-07"], H: ["1990-08", "1991-07"], J: ["1991-08", "1992-07"], K: ["1992-08", "1993-07"],
  L: ["1993-08", "1994-07"], M: ["1994-08", "1995-07"], N: ["1995-08", "1996-07"], P: ["1996-08", "1997-07"], R: ["1997-08", "1998-07"],
  S: ["1998-08", "1999-02"], T: ["1999-03", "1999-08"], V: ["1999-09", "2000-02"], W: ["2000-03", "2000-08"], X: ["2000-09", "2001-02"],
  Y: ["2001-03", "2001-08"],
};
const SUFFIX: Record<string, [string, string]> = {
  A: ["1963-01", "1963-12"], B: ["1964-01", "1964-12"], C: ["1965-01", "1965-12"], D: ["1966-01", "1966-12"], E: ["1967-01", "1967-07"],
  F: ["1967-08", "1968-07"], G: ["1968-08", "1969-07"], H: ["1969-08", "1970-07"], J: ["1970-08", "1971-07"], K: ["1971-08", "1972-07"],
  L: ["1972-08", "1973-07"], M: ["1973-08", "1974-07"], N: ["1974-08", "1975-07"], P: ["1975-08", "1976-07"], R: ["1976-08", "1977-07"],
  S: ["1977-08", "1978-07"], T: ["1978-08", "1979-07"], V: ["1979-08", "1980-07"], W: ["1980-08", "1981-07"], X: ["1981-08", "1982-07"],
  Y: ["1982-08", "1983-07"],
};

export interface PlateDecoding {
  registration: string;
  formatted: string;
  valid: boolean;
  format: "current" | "prefix" | "suffix" | "dateless" | "northern-ireland" | null;
  format_text: string;
  age_identifier: string | null;
  registered_from: string | null;
  registered_to: string | null;
  region: string | null;
  memory_tag: string | null;
  note: string;
}

/** The registration period (first and last month) of a current plate's two-digit age identifier, or null. */
export function agePeriod(age: string, today = new Date()): [string, string] | null {
  const n = Number(age);
  // 51 (September 2001) was the first identifier, then 02 (March 2002); 00, 01 and 50 are not used.
  if (n === 0 || n === 1 || n === 50) return null;
  const year = n >= 51 ? 2000 + n - 50 : 2000 + n;
  const [from, to] = n >= 51 ? [`${year}-09`, `${year + 1}-02`] : [`${year}-03`, `${year}-08`];
  // An identifier not issued yet (its period starts after this month) is not a real plate.
  return from > today.toISOString().slice(0, 7) ? null : [from, to];
}

export function decodePlate(input: string, today = new Date()): PlateDecoding {
  const reg = input.toUpperCase().replace(/\s+/g, "");
  const base = { registration: reg, age_identifier: null, registered_from: null, registered_to: null, region: null, memory_tag: null };
  let m = /^([A-Z]{2})([0-9]{2})([A-Z]{3})$/.exec(reg);
  if (m) {
    const period = agePeriod(m[2], today);
    const region = REGIONS[m[1][0]] ?? null;
    const valid = period !== null && region !== null && !/[IQ]/.test(m[3]);
    return { ...base, formatted: `${m[1]}${m[2]} ${m[3]}`, valid, format: "current", format_text: "Current format (since September 2001): memory tag, age identifier, three random letters",
      age_identifier: m[2], registered_from: period?.[0] ?? null, registered_to: period?.[1] ?? null, region, memory_tag: m[1],
      note: valid ? `First registered between ${period![0]} and ${period![1]}, in the DVLA's ${region} region (where the plate was issued, not where the vehicle is now).`
        : "The shape of a current plate, but its age identifier or memory tag has not been issued." };
  }
  m = /^([A-Z])([0-9]{1,3})([A-Z]{3})$/.exec(reg);
  if (m && PREFIX[m[1]]) {
    const [from, to] = PREFIX[m[1]];
    return { ...base, formatted: `${m[1]}${m[2]} ${m[3]}`, valid: true, format: "prefix", format_text: "Prefix format (August 1983 to August 2001): year letter, 1-3 digits, three letters",
      age_identifier: m[1], registered_from: from, registered_to: to, note: `First registered between ${from} and ${to} (or later with a transferred plate).` };
  }
  m = /^([A-Z]{3})([0-9]{1,3})([A-Z])$/.exec(reg);
  if (m && SUFFIX[m[3]]) {
    const [from, to] = SUFFIX[m[3]];
    return { ...base, formatted: `${m[1]} ${m[2]}${m[3]}`, valid: true, format: "suffix", format_text: "Suffix format (1963 to July 1983): three letters, 1-3 digits, year letter",
      age_identifier: m[3], registered_from: from, registered_to: to, note: `First registered between ${from} and ${to} (or later with a transferred plate).` };
  }
  m = /^([A-Z]{1,3})([0-9]{1,4})$/.exec(reg) ?? /^([0-9]{1,4})([A-Z]{1,3})$/.exec(reg);
  if (m) {
    const letters = /[A-Z]+/.exec(reg)![0];
    const ni = /^[A-Z]{1,3}[0-9]{1,4}$/.test(reg) && letters.length >= 2 && /[IZ]/.test(letters.slice(-2));
    const formatted = `${m[1]} ${m[2]}`;
    return ni
      ? { ...base, formatted, valid: true, format: "northern-ireland", format_text: "Northern Ireland format: letters including I or Z, then up to four digits",
        note: "A Northern Ireland registration: its letters show the issuing area, not the year." }
      : { ...base, formatted, valid: true, format: "dateless", format_text: "Dateless format (before 1963, now often a cherished plate): letters and digits without a year",
        note: "A dateless plate carries no year; it may have been transferred to a vehicle of any age." };
  }
  return { ...base, formatted: reg, valid: false, format: null, format_text: "Not a format of UK registration", note: "This is not the shape of a Great Britain or Northern Ireland registration." };
}

export function plate(ctx: { params: Record<string, unknown> }): PlateDecoding {
  return decodePlate(ctx.params.registration as string);
}
