/**
 * The built-in scenarios beyond the seed incidents (`scenarios/005-…` on) pass as
 * `kvol sim run scenarios/*.yaml` plays them; the seed incidents are in
 * `builtin-seed-scenarios.test.ts`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertScenarioPasses, builtinScenarioFiles } from "./testing/builtin-scenarios.ts";

const otherScenarios = builtinScenarioFiles(/^(0(0[5-9]|[1-9]\d)|[1-9]\d\d)-/);

describe("built-in scenarios: what users of Kubernetes storage hit most", () => {
  it("has at least six beyond the seed incidents", () => {
    assert.ok(otherScenarios.length >= 6, otherScenarios.join(", "));
  });

  for (const name of otherScenarios) it(`${name} passes`, () => assertScenarioPasses(name));
});
