// legislation.gov.uk: the text of one provision, read from its CLML XML in document order (the generic XML
// parse keeps elements but not the order of text around inline markup, so a sentence with a citation in it would
// come out scrambled). The endpoint's transform reads the metadata from `doc`, the same tree `format: xml` gives.
import { XMLParser } from "fast-xml-parser";
import { Problem } from "../../engine/basics/problem.ts";
import { UpstreamError } from "../../engine/upstream/error.ts";
import { parseBody } from "../../engine/upstream/parse-body.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

type OrderedNode = { [tag: string]: OrderedNode[] | string | Record<string, string> | undefined; ":@"?: Record<string, string> };

const ordered = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: "@", trimValues: false, parseTagValue: false, processEntities: true, htmlEntities: true });

// Not part of the provision's wording: metadata, editorial annotations and their markers, the table of contents, links.
const SKIP = new Set(["ukm:Metadata", "Commentaries", "CommentaryRef", "Contents", "atom:link", "Footnotes", "FootnoteRef", "MarginNotes", "MarginNoteRef", "Resources", "ukm:InForce"]);
// Elements whose content is a line of its own.
const LINE = new Set(["Title", "Text", "Number", "Subtitle", "Para", "Reference", "row", "tr"]);
// A paragraph number inside these is shown in brackets, "(1)", "(a)"; a section's or schedule paragraph's is not.
const BRACKETED = /^P[2-7]$|^P$/;

function tagOf(node: OrderedNode): string | undefined {
  return Object.keys(node).find((k) => k !== ":@");
}

function textOf(nodes: OrderedNode[]): string {
  return nodes.map((c) => {
    const tag = tagOf(c);
    if (tag === "#text") return String(c["#text"]);
    return tag && Array.isArray(c[tag]) ? textOf(c[tag] as OrderedNode[]) : "";
  }).join("");
}

/** The provision as lines of plain text: headings, then each (sub)paragraph led by its number. */
export function clmlText(xml: string): string[] {
  const lines: string[] = [];
  let line = "";
  let prefix = "";
  const flush = () => {
    const t = line.replace(/\s+/g, " ").trim();
    if (t) {
      lines.push(prefix + t);
      prefix = "";
    }
    line = "";
  };
  const walk = (nodes: OrderedNode[], parent: string) => {
    for (const node of nodes) {
      const tag = tagOf(node);
      if (tag === undefined || SKIP.has(tag) || tag.startsWith("?")) continue;
      if (tag === "#text") {
        line += String(node["#text"]);
        continue;
      }
      const children = Array.isArray(node[tag]) ? (node[tag] as OrderedNode[]) : [];
      if (tag === "Pnumber") {
        flush();
        const n = textOf(children).trim();
        prefix += BRACKETED.test(parent) ? `(${n}) ` : `${n} `;
      } else if (tag === "entry" || tag === "td" || tag === "th") {
        walk(children, tag);
        line += " | ";
      } else if (LINE.has(tag)) {
        flush();
        walk(children, tag);
        flush();
      } else {
        walk(children, tag);
      }
    }
  };
  walk(ordered.parse(xml) as OrderedNode[], "");
  flush();
  return lines;
}

export async function provision(ctx: PluginContext) {
  const { type, year, number, provision: part, date } = ctx.params as { type: string; year: string; number: number; provision: string; date?: string };
  const path = `/${type}/${year}/${number}/${part}${date ? `/${date}` : ""}/data.xml`;
  let xml: string;
  try {
    // A real answer is a CLML document.
    xml = (await ctx.fetch({ source: "legislation-gov-uk", path, format: "text", cacheMs: 86_400_000, expect: { match: /<Legislation[\s>]/ } })) as string;
  } catch (e) {
    if (e instanceof UpstreamError && e.status === 404) {
      throw new Problem({ status: 404, code: "not_found", param: "provision",
        detail: `legislation.gov.uk has no ${part} in ${type}/${year}/${number}${date ? ` as it stood on ${date}` : ""} (the item, the provision or that version does not exist).` });
    }
    throw e;
  }
  return { doc: parseBody(xml, "xml"), lines: clmlText(xml) };
}

/** The type codes: a fixed table (the group's `types` var, from legislation.gov.uk's URI documentation). */
export function types(ctx: PluginContext) {
  return { types: ctx.vars.types };
}
