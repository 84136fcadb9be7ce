/**
 * Property-based fuzzing of the scenario reader: every built-in scenario, mutated at any of its
 * paths with hostile values, and random text, is read or refused with a ScenarioError whose lines
 * name the file, line and field; never another exception.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parse, stringify } from "yaml";
import { fuzzRuns, fuzzSeed, mutatedObject } from "../../apiserver/testing/fuzz-values.ts";
import type { JsonObject } from "../../apiserver/testing/valid-objects.ts";
import { parseScenario } from "./load.ts";
import { ScenarioError } from "./scenario-error.ts";

const scenarioDir = new URL("../../../scenarios/", import.meta.url).pathname;
const files = readdirSync(scenarioDir)
  .filter((name) => name.endsWith(".yaml"))
  .sort();
const options = { seed: fuzzSeed, numRuns: fuzzRuns(6) };

function readsOrRefuses(text: string, file: string): void {
  try {
    parseScenario(text, { file });
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    assert.ok(error.problems.length > 0, "a refusal lists its problems");
    for (const problem of error.problems) assert.ok(problem.message.startsWith(`${file}:`), problem.message);
  }
}

describe("scenario reader fuzzing", () => {
  it("finds the built-in scenarios", () => {
    assert.ok(files.length >= 10, `scenarios found: ${files.length}`);
  });

  for (const name of files) {
    it(`${name}: mutated at random is read or refused with its file, line and field`, () => {
      const file = join(scenarioDir, name);
      const scenario = parse(readFileSync(file, "utf8")) as JsonObject;
      fc.assert(
        fc.property(mutatedObject(scenario), (mutated) =>
          readsOrRefuses(stringify(mutated, { aliasDuplicateObjects: false }), file),
        ),
        options,
      );
    });
  }

  it("random text is read or refused", () => {
    const text = fc.oneof(
      fc.string({ unit: "binary", maxLength: 80 }),
      fc.constantFrom(
        "",
        "---\n---\n",
        "name: [",
        "&a [*a]",
        "a: &x 1\nb: *y",
        "!!binary x",
        "seed: 1e400",
        "- 1\n- 2",
      ),
    );
    fc.assert(
      fc.property(text, (body) => readsOrRefuses(body, "fuzz.yaml")),
      { ...options, numRuns: options.numRuns * 10 },
    );
  });
});
