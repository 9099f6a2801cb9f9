// What a maintainer who writes a YAML file wrong is told at start-up: the file where the bad value is written, the
// key path, and what is wrong; and the group's shared JSONata functions.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { ROOT, tempDir } from "../support/helpers.ts";

const GROUP = `title: Demo\ndescription: A demo group.\n`;
const ENDPOINT = (extra: string) => `operation: thing\nsummary: A thing\ndescription: A thing.\nprice: 0.001\n${extra}\nexamples:\n  - params: {}\n`;

/** Loads a one-group endpoints folder and answers the start-up error (or "" when it loads). */
async function loadError(group: string, endpoint: string, questions?: unknown): Promise<string> {
  const dir = tempDir("pda-registry-");
  fs.mkdirSync(path.join(dir, "demo"));
  fs.writeFileSync(path.join(dir, "demo", "_group.yaml"), group);
  fs.writeFileSync(path.join(dir, "demo", "thing.yaml"), endpoint);
  if (questions) fs.writeFileSync(path.join(dir, "demo", "search-queries.json"), JSON.stringify(questions));
  try {
    await loadRegistry({ rootDir: ROOT, endpointsDir: dir });
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

const UPSTREAM = `upstream:\n  source: fsa\n  path: /x\n`;

describe("start-up checks of endpoint files", () => {
  it("refuses enum values a parameter can never match (numbers on a text parameter)", async () => {
    const msg = await loadError(GROUP, ENDPOINT(`${UPSTREAM}params:\n  rating: { type: string, enum: [0, 1, 2], description: r }`));
    assert.match(msg, /demo\/thing\.yaml: params\.rating: enum value 0 can never match: a string parameter reads it as "0"/);
  });

  it("refuses a default or an example that fails the parameter's own checks", async () => {
    const msg = await loadError(GROUP, ENDPOINT(`${UPSTREAM}params:\n  code: { type: string, pattern: "^[A-Z]{3}$", default: abcd, example: xy, description: c }`));
    assert.match(msg, /params\.code: the default "abcd" does not pass/);
    assert.match(msg, /params\.code: the example "xy" does not pass/);
  });

  it("refuses a group that says it is the national source for a group that does not exist", async () => {
    const msg = await loadError(`${GROUP}covers: [US]\nnational_source_for: global-wether\n`, ENDPOINT(UPSTREAM));
    assert.match(msg, /demo\/_group\.yaml: national_source_for names no group: global-wether/);
  });

  it("refuses a labelled question that names no endpoint, or has a key search-queries.json does not know", async () => {
    const good = { query: "a thing please", tool: "demo__thing" };
    assert.equal(await loadError(GROUP, ENDPOINT(UPSTREAM), [good]), "");
    const msg = await loadError(GROUP, ENDPOINT(UPSTREAM), [good, { query: "the other thing", tool: "demo__thing", also: ["demo__thang"] }]);
    assert.match(msg, /endpoints\/demo\/search-queries\.json: "the other thing" names no endpoint: demo__thang/);
    assert.match(await loadError(GROUP, ENDPOINT(UPSTREAM), [{ ...good, tol: "x" }]), /demo\/search-queries\.json: 0 has an unknown key "tol"/);
  });

  it("names the group file, once, for a placeholder typo the endpoint inherits", async () => {
    const group = `${GROUP}defaults:\n  params:\n    id: { type: integer, required: true, description: i }\n  upstream:\n    source: fsa\n    path: /x/{id}\n    statuses:\n      "404": { status: 404, detail: "No business with id {fhrs_id}." }\n`;
    const msg = await loadError(group, ENDPOINT(""));
    assert.match(msg, /demo\/_group\.yaml: upstream\.statuses\.404\.detail: "\{fhrs_id\}" names neither a parameter nor a var \(parameters: id\)/);
    assert.doesNotMatch(msg, /thing\.yaml/);
  });

  it("gives a JSONata syntax error its line and column", async () => {
    const msg = await loadError(GROUP, ENDPOINT(`${UPSTREAM}transform: |\n  (\n    $a := 1;\n    { "x": $a + }\n  )`));
    assert.match(msg, /thing\.yaml: transform: .*\(line 3, column \d+/);
  });

  it("names an unknown key without oneOf noise", async () => {
    const msg = await loadError(GROUP, ENDPOINT(`${UPSTREAM}pirce: 2`));
    assert.match(msg, /thing\.yaml: \(top level\) has an unknown key "pirce"/);
    assert.doesNotMatch(msg, /oneOf|must match exactly one/);
  });

  it("binds the group's shared functions in every transform", async () => {
    const group = `${GROUP}functions:\n  double: "function($x) { $x * 2 }"\n`;
    const dir = tempDir("pda-registry-");
    fs.mkdirSync(path.join(dir, "demo"));
    fs.writeFileSync(path.join(dir, "demo", "_group.yaml"), group);
    fs.writeFileSync(path.join(dir, "demo", "thing.yaml"), ENDPOINT(`${UPSTREAM}transform: '{ "twice": $double(n) }'`));
    const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: dir });
    const out = await registry.find("demo", "thing")!.transform!.evaluate({ n: 21 }, { params: {}, vars: {} });
    assert.deepEqual(JSON.parse(JSON.stringify(out)), { twice: 42 });
  });

  it("loads every endpoint file of the project", async () => {
    const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
    assert.ok(registry.endpoints.size > 150);
  });
});
