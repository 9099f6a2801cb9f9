// Whether an upstream body is a real answer, before anything reads it. Each request states what its real answer
// looks like (`expect`: a pattern of the raw body, a test of the parsed one); where it says nothing, these defaults
// still refuse what is never an answer:
//   - an empty body, unless `expect.empty`;
//   - an HTML page where JSON, XML or CSV was asked for (a maintenance or login page), unless `expect.match` accepts
//     it (a source that serves XHTML says so with a pattern);
//   - JSON that is neither an object nor a list (null, "str", 42), unless `expect.test` accepts it.
// A refusal is said as the rest of "The upstream source X ..." and becomes a 502, not charged, never cached.
import type { BodyFormat } from "./parse-body.ts";

export interface Expect {
  /** A pattern the raw body of a real answer matches. */
  match?: RegExp;
  /** An empty body is a real answer. */
  empty?: boolean;
  /** A test the parsed body of a real answer passes (truthy); a step's JSONata `expect.test`, or a plugin's. */
  test?: (body: unknown) => unknown;
}

const HTML_PAGE = /^\uFEFF?\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>]/i;

/** Why the raw body is not a real answer, or undefined. */
export function unlikeRaw(text: string, format: BodyFormat, expect: Expect = {}): string | undefined {
  if (!text.trim()) return expect.empty ? undefined : "answered with an empty body";
  const begins = `(it begins "${text.slice(0, 60).replace(/\s+/g, " ").trim()}")`;
  if (expect.match) return expect.match.test(text) ? undefined : `answered with something that is not its usual ${format.toUpperCase()} answer ${begins}`;
  if (format !== "text" && HTML_PAGE.test(text)) return `answered with an HTML page instead of ${format.toUpperCase()} ${begins}`;
  return undefined;
}

/** Why the parsed body is not a real answer, or undefined. */
export async function unlikeParsed(body: unknown, format: BodyFormat, expect: Expect = {}): Promise<string | undefined> {
  if (expect.test) return (await expect.test(body)) ? undefined : "answered with a body that lacks what a real answer has";
  if (format === "json" && (body === null || typeof body !== "object")) return `answered ${JSON.stringify(body).slice(0, 40)} where a JSON object or list was expected`;
  return undefined;
}
