// biomedical-citations/article: the full PubMed record is EFetch XML, which has mixed content (italics, MathML inside
// titles and abstracts) that is flattened to text before parsing. (The searches and summaries are YAML steps.)
// tool, email (query_env) and api_key (optional auth) travel on every request through the `ncbi` source.
import { XMLParser } from "fast-xml-parser";
import { Problem } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

const DAY_MS = 86_400_000;
const PUBMED = "https://pubmed.ncbi.nlm.nih.gov/";

// ---- article: EFetch XML ----

const ARRAYS = new Set(["PubmedArticle", "PubmedBookArticle", "Author", "AffiliationInfo", "AbstractText", "ArticleId", "PublicationType", "Keyword", "KeywordList",
  "MeshHeading", "QualifierName", "Grant", "Identifier", "ELocationID", "Reference", "PubMedPubDate", "ISSN", "Chemical", "ArticleIdList"]);
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", textNodeName: "#text", parseTagValue: false, trimValues: true,
  isArray: (name) => ARRAYS.has(name) });

/** Titles and abstracts carry inline markup (<i>, <sup>) and MathML: flattened to their text before parsing. */
export function flattenMixedContent(text: string): string {
  const math = (m: string) => m.replace(/>\s*\n\s*</g, "><").replace(/<[^>]+>/g, "");
  return text.replace(/<(ArticleTitle|AbstractText|VernacularTitle|BookTitle)(\s[^>]*)?>([\s\S]*?)<\/\1>/g, (_all, tag: string, attrs: string | undefined, inner: string) => {
    const flat = inner.replace(/<mml:math[\s\S]*?<\/mml:math>/g, math).replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim();
    return `<${tag}${attrs ?? ""}>${flat}</${tag}>`;
  });
}

type Node = Record<string, unknown>;
const text = (v: unknown): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") return v || null;
  if (typeof v === "object" && "#text" in (v as Node)) return String((v as Node)["#text"]) || null;
  return null;
};
const list = (v: unknown): Node[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]) as Node[];
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** A PubMed date element as YYYY-MM-DD, YYYY-MM or YYYY (MedlineDate free text gives its year). */
function pubmedDate(d: Node | undefined): string | null {
  if (!d) return null;
  const year = text(d.Year) ?? /\d{4}/.exec(text(d.MedlineDate) ?? "")?.[0];
  if (!year) return null;
  const m = text(d.Month);
  const month = m ? (/^\d+$/.test(m) ? Number(m) : MONTHS.indexOf(m.slice(0, 3).toLowerCase()) + 1) : 0;
  if (!month) return year;
  const day = text(d.Day);
  return `${year}-${String(month).padStart(2, "0")}${day ? `-${day.padStart(2, "0")}` : ""}`;
}

export async function article(ctx: PluginContext): Promise<unknown> {
  const pmid = String(ctx.params.pmid);
  const raw = (await ctx.fetch({
    source: "ncbi", path: "/efetch.fcgi", query: { db: "pubmed", id: pmid, retmode: "xml" }, format: "text", cacheMs: DAY_MS,
    // A whole PubmedArticleSet (empty for a PMID PubMed does not have); an <eFetchResult><ERROR> is not an answer.
    expect: { match: /<PubmedArticleSet>[\s\S]*<\/PubmedArticleSet>\s*$/ },
  })) as string;
  const doc = xml.parse(flattenMixedContent(raw)) as Node;
  const set = (doc.PubmedArticleSet ?? {}) as Node;
  const entry = list(set.PubmedArticle)[0];
  if (!entry) {
    if (list(set.PubmedBookArticle).length) throw new Problem({ status: 404, code: "not_found", param: "pmid", detail: `PMID ${pmid} is a book chapter (PubmedBookArticle), which this endpoint does not read; use summary.` });
    throw new Problem({ status: 404, code: "not_found", param: "pmid", detail: `PubMed has no article ${pmid}.` });
  }
  const cit = entry.MedlineCitation as Node;
  const art = cit.Article as Node;
  const journal = art.Journal as Node;
  const issue = (journal.JournalIssue ?? {}) as Node;
  const ids = list((list((entry.PubmedData as Node | undefined)?.ArticleIdList)[0] as Node | undefined)?.ArticleId);
  const idOf = (type: string) => text(ids.find((i) => i["@IdType"] === type)) ?? text(list(art.ELocationID).find((e) => e["@EIdType"] === type));
  const abstract = list((art.Abstract as Node | undefined)?.AbstractText).map((a) => ({ label: typeof a === "object" ? (a["@Label"] as string | undefined) ?? null : null, text: text(a) }))
    .filter((a) => a.text);
  const authors = list((art.AuthorList as Node | undefined)?.Author).map((a) => {
    const orcid = text(list(a.Identifier).find((i) => i["@Source"] === "ORCID"));
    const collective = text(a.CollectiveName);
    return {
      name: collective ?? [text(a.ForeName), text(a.LastName)].filter(Boolean).join(" "),
      family: text(a.LastName),
      given: text(a.ForeName),
      collective: collective !== null,
      orcid: orcid ? orcid.replace(/^https?:\/\/orcid\.org\//, "") : null,
      affiliations: list(a.AffiliationInfo).map((f) => text(f.Affiliation)).filter(Boolean),
    };
  });
  const history = list(((entry.PubmedData as Node | undefined)?.History as Node | undefined)?.PubMedPubDate);
  const historyDate = (s: string) => pubmedDate(history.find((h) => h["@PubStatus"] === s));
  const issns = list(journal.ISSN);
  return {
    id: pmid,
    pmid,
    url: `${PUBMED}${pmid}/`,
    title: text(art.ArticleTitle),
    abstract: abstract.length ? abstract.map((a) => (a.label ? `${a.label}: ${a.text}` : a.text)).join("\n\n") : null,
    abstract_sections: abstract,
    authors,
    journal: {
      title: text(journal.Title),
      abbreviation: text(journal.ISOAbbreviation),
      issn_print: text(issns.find((i) => i["@IssnType"] === "Print")),
      issn_electronic: text(issns.find((i) => i["@IssnType"] === "Electronic")),
      volume: text(issue.Volume),
      issue: text(issue.Issue),
      pages: text((art.Pagination as Node | undefined)?.MedlinePgn),
      country: text((cit.MedlineJournalInfo as Node | undefined)?.Country),
    },
    pub_date: pubmedDate(issue.PubDate as Node | undefined),
    electronic_date: pubmedDate(list(art.ArticleDate)[0] ?? (art.ArticleDate as Node | undefined)),
    received_date: historyDate("received"),
    accepted_date: historyDate("accepted"),
    pubmed_date: historyDate("pubmed"),
    doi: idOf("doi"),
    pmcid: idOf("pmc"),
    language: text(list(art.Language)[0] ?? art.Language),
    publication_types: list((art.PublicationTypeList as Node | undefined)?.PublicationType).map(text).filter(Boolean),
    mesh_headings: list((cit.MeshHeadingList as Node | undefined)?.MeshHeading).map((h) => ({
      descriptor: text(h.DescriptorName),
      major: typeof h.DescriptorName === "object" && (h.DescriptorName as Node)["@MajorTopicYN"] === "Y",
      qualifiers: list(h.QualifierName).map(text).filter(Boolean),
    })),
    keywords: list(cit.KeywordList).flatMap((k) => list(k.Keyword).map(text)).filter(Boolean),
    grants: list((art.GrantList as Node | undefined)?.Grant).map((g) => ({ id: text(g.GrantID), agency: text(g.Agency), country: text(g.Country) })),
    status: text(cit["@Status"]),
    reference_count: list(list((entry.PubmedData as Node | undefined)?.ReferenceList)[0]?.Reference ?? ((entry.PubmedData as Node | undefined)?.ReferenceList as Node | undefined)?.Reference).length,
  };
}
