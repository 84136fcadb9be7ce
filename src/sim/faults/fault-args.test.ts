import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FaultParamSpecs } from "./fault-args.ts";
import { FaultArgs } from "./fault-args.ts";

const powerOff: FaultParamSpecs = {
  name: "node-power-off",
  params: [{ name: "node", type: "string", required: true, description: "" }],
};

const latency: FaultParamSpecs = {
  name: "api-latency",
  params: [
    { name: "delay", type: "duration", required: true, description: "" },
    { name: "times", type: "number", required: false, description: "" },
    { name: "loud", type: "boolean", required: false, default: false, description: "" },
  ],
};

describe("FaultArgs", () => {
  it("names the fault and the missing parameter", () => {
    assert.throws(() => new FaultArgs(powerOff, {}), {
      message: 'fault node-power-off: parameter "node" is required',
    });
  });

  it("names the parameter whose value is malformed", () => {
    assert.throws(() => new FaultArgs(latency, { delay: "3x" }), {
      message: 'fault api-latency: parameter "delay": "3x" is not a duration (write 30s, 2m, 1m30s or milliseconds)',
    });
    assert.throws(() => new FaultArgs(latency, { delay: "1s", times: "many" }), {
      message: 'fault api-latency: parameter "times": "many" is not a number',
    });
    assert.throws(() => new FaultArgs(latency, { delay: "1s", loud: "yes" }), {
      message: 'fault api-latency: parameter "loud": "yes" is not true or false',
    });
    assert.throws(() => new FaultArgs(powerOff, { node: "" }), /parameter "node": "" is not a non-empty string/);
  });

  it("refuses a parameter the fault does not have, listing those it has", () => {
    assert.throws(() => new FaultArgs(powerOff, { node: "a", nodes: "b" }), {
      message: 'fault node-power-off: unknown parameter "nodes" (parameters: "node")',
    });
  });

  it("converts typed and textual values alike (YAML and the command line)", () => {
    const fromYaml = new FaultArgs(latency, { delay: 2_000, times: 3, loud: true });
    const fromCli = new FaultArgs(latency, { delay: "2s", times: "3", loud: "true" });
    for (const args of [fromYaml, fromCli]) {
      assert.equal(args.durationMs("delay"), 2_000);
      assert.equal(args.optionalNumber("times"), 3);
      assert.equal(args.boolean("loud"), true);
    }
  });

  it("fills defaults and leaves other optional parameters out", () => {
    const args = new FaultArgs(latency, { delay: "1m" });
    assert.equal(args.durationMs("delay"), 60_000);
    assert.equal(args.boolean("loud"), false);
    assert.equal(args.optionalNumber("times"), undefined);
  });
});
