/**
 * The built-in scenarios (`scenarios/*.yaml`) for the tests that play them: the files, and a check
 * that one passes as `kvol sim run` would judge it, with the failed verdicts in the message.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { runScenario } from "../../runner/run-scenario.ts";
import { loadScenarioFile } from "../../scenario/load.ts";

export const scenariosDir = new URL("../../../../scenarios/", import.meta.url).pathname;

/** The scenario files whose name matches `pattern`, in name order. */
export function builtinScenarioFiles(pattern: RegExp): string[] {
  return readdirSync(scenariosDir)
    .filter((name) => name.endsWith(".yaml") && pattern.test(name))
    .sort();
}

/** Plays `scenarios/<name>` with its own seed; fails with every verdict that did not pass. */
export async function assertScenarioPasses(name: string): Promise<void> {
  const result = await runScenario(loadScenarioFile(`${scenariosDir}${name}`));
  const problems = result.verdicts
    .filter((verdict) => verdict.status !== "passed")
    .map((verdict) => `${verdict.status}: ${verdict.expectation} — ${verdict.detail}`);
  if (result.violation !== undefined) {
    problems.push(...result.violation.violations.map((violation) => `${violation.invariant}: ${violation.message}`));
  }
  assert.deepEqual(problems, [], `${name}:\n${problems.join("\n")}`);
  assert.equal(result.passed, true);
}
