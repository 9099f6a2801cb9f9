// What search_apis and the tool list show as examples is type-correct: each endpoint's example_arguments, and
// each parameter's schema examples, validate against the tool's own inputSchema (the one tools/list gives).
import assert from "node:assert/strict";
import path from "node:path";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { loadRegistry } from "../../engine/endpoints/registry.ts";
import { endpointCard, inputSchema } from "../../engine/search/card.ts";
import { ROOT } from "../support/helpers.ts";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const registry = await loadRegistry({ rootDir: ROOT, endpointsDir: path.join(ROOT, "endpoints") });
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
const why = (errors: unknown) => JSON.stringify(errors);

describe("examples shown by search_apis and the tool schemas", () => {
  const endpoints = [...registry.endpoints.values()];

  it("covers every endpoint, and most show example arguments", () => {
    const shown = endpoints.filter((e) => endpointCard(e).example_arguments);
    assert.ok(endpoints.length > 0 && shown.length >= endpoints.length / 2, `${shown.length} of ${endpoints.length}`);
  });

  it("types an example as its parameter does (case, booleans, lists, numbers)", () => {
    const convert = endpointCard(registry.byTool("calculators__currency-convert")!);
    assert.equal(convert.example_arguments?.from, "GBP");
  });

  for (const e of endpoints) {
    it(`${e.toolName}: example arguments and parameter examples validate against its inputSchema`, () => {
      const schema = inputSchema(e.params, e.freeForm);
      const card = endpointCard(e);
      if (card.example_arguments) {
        const validate = ajv.compile(schema);
        assert.ok(validate(card.example_arguments), `example_arguments ${JSON.stringify(card.example_arguments)}: ${why(validate.errors)}`);
      }
      for (const [name, prop] of Object.entries(schema.properties as Record<string, Record<string, unknown>>)) {
        for (const example of (prop.examples as unknown[] | undefined) ?? []) {
          const { examples: _examples, ...propSchema } = prop;
          const validate = ajv.compile(propSchema);
          assert.ok(validate(example), `${name} example ${JSON.stringify(example)}: ${why(validate.errors)}`);
        }
      }
    });
  }
});
