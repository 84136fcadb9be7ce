import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseScenario } from "./load.ts";
import { ScenarioError } from "./scenario-error.ts";

function scenarioWith(options: string): string {
  return `name: capacity
cluster:
  nodes: [{ name: node-a }]
  csiDrivers:
    - name: hostpath.csi.kvol.io
      options: { ${options} }
`;
}

describe("a bundled driver's capacityLimit in a scenario", () => {
  it("is a quantity the driver gets in bytes", () => {
    const scenario = parseScenario(scenarioWith("capacityLimit: 3Gi"), { file: "scenario.yaml" });
    assert.deepEqual(scenario.cluster.csiDrivers, [
      { name: "hostpath.csi.kvol.io", options: { capacityLimitBytes: 3 * 1024 ** 3 } },
    ]);
  });

  it("names the field and says what is wrong with a bad value", () => {
    for (const [value, problem] of [
      ["lots", '"lots" is not a quantity (use 512Mi, 10Gi)'],
      ["0", '"0" must be more than zero'],
    ]) {
      assert.throws(
        () => parseScenario(scenarioWith(`capacityLimit: ${value}`), { file: "scenario.yaml" }),
        (error: unknown) =>
          error instanceof ScenarioError &&
          error.message.includes(`cluster.csiDrivers[0].options.capacityLimit: ${problem}`),
      );
    }
  });
});
