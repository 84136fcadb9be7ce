import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shrinkList } from "./shrink.ts";

const upTo = (count: number): number[] => Array.from({ length: count }, (_, index) => index);

describe("shrinkList (delta debugging)", () => {
  it("keeps only the two elements whose combination fails, in their original order", async () => {
    const result = await shrinkList(
      upTo(16),
      async (candidate) => candidate.includes(3) && candidate.includes(12),
      1_000,
    );
    assert.deepEqual(result.items, [3, 12]);
    assert.equal(result.minimal, true);
  });

  it("returns the empty list when the failure needs no element at all", async () => {
    const result = await shrinkList(upTo(5), async () => true, 1_000);
    assert.deepEqual(result.items, []);
    assert.equal(result.runs, 1);
  });

  it("leaves a list alone when every element is needed", async () => {
    const result = await shrinkList(upTo(4), async (candidate) => candidate.length === 4, 1_000);
    assert.deepEqual(result.items, [0, 1, 2, 3]);
    assert.equal(result.minimal, true);
  });

  it("finds a single culprit among many with a logarithmic number of runs", async () => {
    const result = await shrinkList(upTo(64), async (candidate) => candidate.includes(41), 1_000);
    assert.deepEqual(result.items, [41]);
    assert.ok(result.runs <= 20, `${result.runs} runs`);
  });

  it("stops at the run budget with the smallest failing list found so far", async () => {
    const result = await shrinkList(upTo(32), async (candidate) => candidate.includes(7), 3);
    assert.equal(result.runs, 3);
    assert.equal(result.minimal, false);
    assert.ok(result.items.includes(7));
    assert.ok(result.items.length < 32);
  });
});
