/**
 * The seed incidents as built-in scenarios (`scenarios/000-…` to `004-…`) pass as
 * `kvol sim run scenarios/*.yaml` plays them. The other built-in scenarios are in
 * `builtin-scenarios.test.ts` (split so each file stays quick).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertScenarioPasses, builtinScenarioFiles } from "./testing/builtin-scenarios.ts";

const seedScenarios = builtinScenarioFiles(/^00[0-4]-/);

describe("built-in scenarios: the seed incidents", () => {
  it("has every seed incident, 003 and 004 in each variant", () => {
    const numbers = seedScenarios.map((name) => name.slice(0, 3));
    assert.deepEqual([...new Set(numbers)], ["000", "002", "003", "004"]);
    assert.ok(numbers.filter((number) => number === "003").length >= 2, "003 with and without the fix");
    assert.ok(numbers.filter((number) => number === "004").length >= 3, "004 and each way out");
  });

  for (const name of seedScenarios) it(`${name} passes`, () => assertScenarioPasses(name));
});
