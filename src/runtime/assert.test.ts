import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvariantViolation, invariant, invariantTransition, onInvariantViolation } from "./assert.ts";

describe("invariant", () => {
  it("does nothing while the condition holds", () => {
    invariant(true, 'volume "v"', () => assert.fail("the message is built only on failure"));
  });

  it("throws with the key and the violation, and tells the listeners first", () => {
    const heard: string[] = [];
    const stop = onInvariantViolation((violation) => heard.push(violation.key));
    try {
      assert.throws(() => invariant(false, 'volume "v" on node "n"', "not in volumesByNode"), {
        name: "InvariantViolation",
        message: 'invariant violated for volume "v" on node "n": not in volumesByNode',
      });
    } finally {
      stop();
    }
    assert.deepEqual(heard, ['volume "v" on node "n"']);
    assert.throws(() => invariant(false, "k", "again"), InvariantViolation);
    assert.deepEqual(heard, ['volume "v" on node "n"'], "a listener that stopped hears nothing more");
  });
});

describe("invariantTransition", () => {
  type Light = "red" | "green" | "amber";
  const light = { red: ["green"], green: ["amber"], amber: ["red"] } as const;

  it("accepts a legal move and refuses an illegal one, naming the state machine and both states", () => {
    invariantTransition<Light>(light, "light/1", "light state", "red", "green");
    assert.throws(() => invariantTransition<Light>(light, "light/1", "light state", "red", "amber"), {
      message: "invariant violated for light/1: light state may not go from red to amber",
    });
  });
});
