import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChangeSignal } from "./change-signal.ts";

describe("ChangeSignal", () => {
  it("counts changes and calls every listener after each, in subscription order", () => {
    const signal = new ChangeSignal();
    const heard: string[] = [];
    signal.subscribe(() => heard.push(`a${signal.generation}`));
    signal.subscribe(() => heard.push(`b${signal.generation}`));
    assert.equal(signal.generation, 0);
    signal.changed();
    signal.changed();
    assert.equal(signal.generation, 2);
    assert.deepEqual(heard, ["a1", "b1", "a2", "b2"]);
  });
});
