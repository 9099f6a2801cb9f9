// biomedical-citations: PubMed through NCBI's E-utilities. Searches are two calls (ESearch for the PMIDs, then
// ESummary for their records) and an empty search makes no second call; the full article is EFetch XML, which
// has mixed content (italics, MathML inside titles and abstracts) that is flattened to text before parsing.
// tool, email (query_env) and api_key (optional auth) travel on every request through the `ncbi` source.
import { XMLParser } from "fast-xml-parser";
import { Problem, badParam } from "../../engine/basics/problem.ts";
import type { PluginContext } from "../../engine/endpoints/plugin.ts";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const PUBMED = "https://pubmed.ncbi.nlm.nih.gov/";
const MAX_AUTHORS = 10;
const SORT: Record<string, string> = { relevance: "relevance", pub_date: "pub_date", author: "Author", journal: "JournalName" };

interface ESearch { esearchresult: { count: string; idlist: string[]; querytranslation?: string; errorlist?: { phrasesnotfound?: string[] }; ERROR?: string } }
interface SummaryDoc {
  uid: string; error?: string; title?: string; authors?: { name: string; authtype?: string }[]; source?: string; fulljournalname?: string;
  pubdate?: string; sortpubdate?: string; volume?: string; issue?: string; pages?: string; pubtype?: string[]; lang?: string[];
  articleids?: { idtype: string; value: string }[]; issn?: string; essn?: string; attributes?: string[];
}
interface ESummary { result: Record<string, unknown> & { uids: string[] } }

const blank = (v: unknown) => (v === undefined || v === null || v === "" ? null : v);

/** One PubMed record from ESummary, in the group's compact shape. */
export function compactRecord(d: SummaryDoc): Record<string, unknown> {
  const id = (type: string) => d.articleids?.find((a) => a.idtype === type)?.value ?? null;
  const authors = (d.authors ?? []).filter((a) => !a.authtype || a.authtype === "Author" || a.authtype === "CollectiveName").map((a) => a.name);
  const sortDay = /^(\d{4})\/(\d{2})\/(\d{2})/.exec(d.sortpubdate ?? "");
  return {
    id: d.uid,
    pmid: d.uid,
    url: `${PUBMED}${d.uid}/`,
    title: blank(d.title),
    authors: authors.slice(0, MAX_AUTHORS),
    authors_count: authors.length,
    journal: blank(d.fulljournalname) ?? blank(d.source),
    journal_abbreviation: blank(d.source),
    pub_date_text: blank(d.pubdate),
    date: sortDay ? `${sortDay[1]}-${sortDay[2]}-${sortDay[3]}` : null,
    year: /^\d{4}/.test(d.pubdate ?? "") ? Number(d.pubdate!.slice(0, 4)) : null,
    volume: blank(d.volume),
    issue: blank(d.issue),
    pages: blank(d.pages),
    doi: id("doi"),
    pmcid: id("pmc"),
    publication_types: d.pubtype ?? [],
    languages: d.lang ?? [],
    has_abstract: (d.attributes ?? []).includes("Has Abstract"),
  };
}

/** ESummary for these PMIDs: the records in the order asked, and the PMIDs PubMed has no record for. */
async function summaries(ctx: PluginContext, pmids: string[]): Promise<{ records: Record<string, unknown>[]; errors: { pmid: string; error: string }[] }> {
  if (!pmids.length) return { records: [], errors: [] };
  const body = (await ctx.fetch({
    source: "ncbi", path: "/esummary.fcgi", query: { db: "pubmed", id: pmids.join(","), retmode: "json" }, cacheMs: DAY_MS,
    // Each PMID asked is in result.uids, with its record or its error ("cannot get document summary").
    expect: { test: '$type(result.uids) = "array"' },
  })) as ESummary;
  const records: Record<string, unknown>[] = [];
  const errors: { pmid: string; error: string }[] = [];
  for (const pmid of pmids) {
    const d = body.result[pmid] as SummaryDoc | undefined;
    if (!d || d.error) errors.push({ pmid, error: d?.error ?? "PubMed returned no record for this PMID" });
    else records.push(compactRecord(d));
  }
  return { records, errors };
}

async function esearch(ctx: PluginContext, query: Record<string, string>): Promise<{ total: number; ids: string[]; translation: string | null; notFound: string[] }> {
  const body = (await ctx.fetch({
    source: "ncbi", path: "/esearch.fcgi", query: { db: "pubmed", ...query, retmode: "json" }, cacheMs: HOUR_MS,
    // A search's count and id list (count "0" and [] when nothing matches), or PubMed's ERROR about the query.
    expect: { test: '$exists(esearchresult.ERROR) or ($exists(esearchresult.count) and $type(esearchresult.idlist) = "array")' },
  })) as ESearch;
  const r = body.esearchresult;
  if (r.ERROR) throw badParam("q", `PubMed could not read the search: ${r.ERROR}`);
  return { total: Number(r.count), ids: r.idlist, translation: r.querytranslation ?? null, notFound: r.errorlist?.phrasesnotfound ?? [] };
}

const slashDate = (d: string) => d.replaceAll("-", "/");

export async function search(ctx: PluginContext): Promise<unknown> {
  const { q, limit, offset, sort, from, to } = ctx.params as { q: string; limit: number; offset: number; sort: string; from?: string; to?: string };
  if (offset + limit > 10_000) throw badParam("offset", "PubMed returns only the first 10,000 hits of a search: offset + limit must be at most 10,000. Narrow the search instead.");
  const dates: Record<string, string> = from || to ? { datetype: "pdat", mindate: slashDate(from ?? "1800-01-01"), maxdate: slashDate(to ?? "3000-12-31") } : {};
  const found = await esearch(ctx, { term: q, retstart: String(offset), retmax: String(limit), sort: SORT[sort], ...dates });
  const { records } = await summaries(ctx, found.ids);
  const reach = offset + found.ids.length;
  return {
    query: ctx.params,
    query_translation: found.translation,
    total: found.total,
    count: records.length,
    offset,
    next: reach < found.total && reach < 10_000 ? { offset: reach } : null,
    articles: records,
    note: records.length ? null : `PubMed has no articles for this search${found.notFound.length ? ` (not found: ${found.notFound.join(", ")})` : ""}.`,
  };
}

export async function summary(ctx: PluginContext): Promise<unknown> {
  const pmids = [...new Set(String(ctx.params.pmids).split(",").map((s) => s.trim()).filter(Boolean))];
  if (pmids.some((p) => !/^\d{1,9}$/.test(p))) throw badParam("pmids", "Give PubMed ids (digits), separated by commas.");
  if (pmids.length > 200) throw badParam("pmids", "At most 200 PMIDs a call.");
  const { records, errors } = await summaries(ctx, pmids);
  if (!records.length) throw new Problem({ status: 404, code: "not_found", param: "pmids", detail: `PubMed has no record for ${pmids.join(", ")}.` });
  return { count: records.length, articles: records, errors };
}

export async function byDoi(ctx: PluginContext): Promise<unknown> {
  const doi = String(ctx.params.doi).trim().replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i, "");
  const found = await esearch(ctx, { term: `"${doi}"[doi]` });
  if (!found.ids.length) throw new Problem({ status: 404, code: "not_found", param: "doi", detail: `PubMed has no article with the DOI ${doi}.` });
  const { records } = await summaries(ctx, found.ids.slice(0, 20));
  return { doi, count: records.length, articles: records };
}

interface ELink { linksets: { ids?: string[]; linksetdbs?: { linkname?: string; links?: ({ id: string | number; score?: string | number } | string)[] }[] }[]; ERROR?: string }

export async function similar(ctx: PluginContext): Promise<unknown> {
  const pmid = String(ctx.params.pmid);
  const limit = Number(ctx.params.limit);
  const body = (await ctx.fetch({
    source: "ncbi", path: "/elink.fcgi", query: { dbfrom: "pubmed", db: "pubmed", id: pmid, cmd: "neighbor_score", linkname: "pubmed_pubmed", retmode: "json" }, cacheMs: DAY_MS,
    expect: { test: '$type(linksets) = "array"' },
  })) as ELink;
  const set = body.linksets[0];
  if (!set?.ids?.length || set.ids.every((i) => String(i) === "0")) throw new Problem({ status: 404, code: "not_found", param: "pmid", detail: `PubMed has no article ${pmid}.` });
  const links = (set.linksetdbs ?? []).find((l) => l.linkname === "pubmed_pubmed")?.links ?? [];
  const scored = links.map((l) => (typeof l === "object" ? { pmid: String(l.id), score: l.score === undefined ? null : Number(l.score) } : { pmid: String(l), score: null }))
    .filter((l) => l.pmid !== pmid).slice(0, limit);
  const { records } = await summaries(ctx, scored.map((s) => s.pmid));
  const byId = new Map(records.map((r) => [r.pmid, r]));
  const articles = scored.filter((s) => byId.has(s.pmid)).map((s) => ({ ...byId.get(s.pmid), score: s.score }));
  return {
    pmid,
    count: articles.length,
    articles,
    note: articles.length ? "score is PubMed's similarity score (higher is more similar; it compares only within one answer)." : "PubMed lists no similar articles for this PMID.",
  };
}

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
