// world-indicators/search-indicators: the World Bank API cannot search indicators by words, so its indicator list
// is a local dataset (world-bank-indicators.dataset.ts beside this file) searched here. An indicator scores for each
// word of the question found in its code, name or topics (and less in its definition); an exact code comes first.
import { needsDatasets, type PluginContext } from "../../engine/endpoints/plugin.ts";
import { words, type IndicatorIndex } from "./world-bank-indicators.dataset.ts";

const STOP = new Set(["the", "of", "a", "an", "and", "or", "in", "for", "to", "by", "on", "per", "what", "is", "how", "much", "many", "which", "indicator", "indicators", "data", "world", "bank"]);

export function searchIndicators(ctx: PluginContext): Record<string, unknown> {
  const { q, source, limit } = ctx.params as { q: string; source?: number; limit: number };
  const handle = ctx.dataset<IndicatorIndex>("world-bank-indicators");
  const { indicators, nameWords, noteWords } = handle.index;
  const code = q.trim().toLowerCase();
  const terms = [...new Set(words(q).filter((w) => !STOP.has(w)))];
  const hits: { i: number; score: number }[] = [];
  for (let i = 0; i < indicators.length; i++) {
    const ind = indicators[i];
    if (source && ind.source_id !== source) continue;
    let score = ind.id.toLowerCase() === code ? 100 : 0;
    let matched = 0;
    for (const t of terms) {
      if (nameWords[i].has(t)) { score += 3; matched++; }
      else if (noteWords[i].has(t)) { score += 1; matched++; }
    }
    if (score === 0) continue;
    // Every word found counts more than many found once; shorter names (the headline indicator) first among equals.
    if (matched === terms.length) score += 2 * terms.length;
    hits.push({ i, score: score - ind.name.length / 1000 });
  }
  hits.sort((a, b) => b.score - a.score || indicators[a.i].id.localeCompare(indicators[b.i].id));
  const out = hits.slice(0, limit).map(({ i }) => {
    const ind = indicators[i];
    return {
      id: ind.id,
      name: ind.name,
      unit: ind.unit,
      source: { id: ind.source_id, name: ind.source },
      topics: ind.topics,
      definition: ind.definition && ind.definition.length > 600 ? `${ind.definition.slice(0, 597)}...` : ind.definition,
      url: `https://data.worldbank.org/indicator/${encodeURIComponent(ind.id)}`,
    };
  });
  return {
    query: { q, source: source || null },
    total: hits.length,
    count: out.length,
    indicators: out,
    note: out.length ? null : "No World Bank indicator matches these words" + (source ? ` in source ${source}` : "") + ".",
  };
}

// The local dataset these answer from: while it is not loaded, a call answers 503 before any payment is asked for.
needsDatasets(["world-bank-indicators"], searchIndicators);
