// search_apis learns the words agents use from the labelled questions beside each group (engine/search/learned.ts).
import assert from "node:assert/strict";
import path from "node:path";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { createSearchIndex } from "../../engine/search/index.ts";
import { learnFrom } from "../../engine/search/learned.ts";
import { ROOT } from "../support/helpers.ts";

const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
const endpoints = [...registry.endpoints.values()];
const first = (index: ReturnType<typeof createSearchIndex>, query: string) => index.search(query, { limit: 1 })[0]?.endpoint.toolName;

describe("learning from earlier questions", () => {
  const asked = learnFrom([
    { query: "is Friday a day off", tool: "days__check" },
    { query: "days off in Wales this year", tool: "days__list" },
    { query: "base rate today", tool: "rates__bank" },
  ]);

  it("favours the endpoint whose questions used the words, and the likelihoods sum to 1", () => {
    const [check, list, bank] = asked.likelihoods("is Monday a day off?", ["days__check", "days__list", "rates__bank"]);
    assert.ok(check > list && list > bank, `${check} ${list} ${bank}`);
    assert.ok(Math.abs(check + list + bank - 1) < 1e-9);
  });

  it("leaves the candidates even for words no question used, and for numbers", () => {
    assert.deepEqual(asked.likelihoods("quokka 2026", ["days__check", "rates__bank"]), [0.5, 0.5]);
  });

  it("raises the candidates whose earlier questions used the query's words", () => {
    const query = "What symbol does Costco trade under?";
    const bare = createSearchIndex(endpoints, []);
    const taught = createSearchIndex(endpoints, [
      { query: "what symbol does Apple trade under", tool: "us-tickers__search" },
      { query: "ticker symbol for Tesla", tool: "us-tickers__search" },
      { query: "import duty on commodity code 0901210000", tool: "uk-trade-tariff__commodity" },
    ]);
    const score = (index: ReturnType<typeof createSearchIndex>, tool: string) => index.search(query, { limit: 10 }).find((h) => h.endpoint.toolName === tool)!.score;
    const gain = (tool: string) => score(taught, tool) - score(bare, tool);
    assert.ok(gain("us-tickers__search") > gain("uk-trade-tariff__commodity"), `${gain("us-tickers__search")} ${gain("uk-trade-tariff__commodity")}`);
  });

  it("never brings in an endpoint the endpoint files' own words did not find", () => {
    const query = "weather in Paris tomorrow";
    const taught = createSearchIndex(endpoints, [{ query, tool: "uk-economy__cpi-annual-rate" }]);
    assert.ok(!taught.search(query, { limit: 20 }).some((h) => h.endpoint.toolName === "uk-economy__cpi-annual-rate"));
  });

  it("learns from every group's search-queries.json by default", () => {
    const query = "Will it be above 90°F at 3pm tomorrow in Phoenix? hourly temps";
    assert.equal(first(createSearchIndex(endpoints), query), "us-weather__hourly");
    assert.notEqual(first(createSearchIndex(endpoints, []), query), "us-weather__hourly");
  });
});
