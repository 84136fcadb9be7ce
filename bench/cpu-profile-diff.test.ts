import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatShareChanges, growingShares } from "./cpu-profile-diff.ts";

describe("CPU profile comparison by share", () => {
  const small = {
    sampledMs: 100,
    functions: [
      { function: "scan src/a.ts:1", selfMs: 10, totalMs: 10 },
      { function: "(garbage collector)", selfMs: 20, totalMs: 20 },
      { function: "parse src/b.ts:3", selfMs: 30, totalMs: 40 },
    ],
  };
  // Ten times the time sampled: the scan's share grew from 10 % to 40 %, the parse's fell.
  const large = {
    sampledMs: 1_000,
    functions: [
      { function: "scan src/a.ts:1", selfMs: 400, totalMs: 400 },
      { function: "(garbage collector)", selfMs: 200, totalMs: 200 },
      { function: "parse src/b.ts:3", selfMs: 100, totalMs: 150 },
      { function: "sort src/c.ts:9", selfMs: 50, totalMs: 50 },
    ],
  };

  it("puts the function whose share grew most first, and one absent before at 0 %", () => {
    assert.deepEqual(growingShares(small, large, 3), [
      { function: "scan src/a.ts:1", beforeShare: 0.1, afterShare: 0.4 },
      { function: "sort src/c.ts:9", beforeShare: 0, afterShare: 0.05 },
      { function: "(garbage collector)", beforeShare: 0.2, afterShare: 0.2 },
    ]);
  });

  it("prints shares in percent and the change in points", () => {
    const text = formatShareChanges(growingShares(small, large, 4), "growth");
    assert.match(text, /10\.0%\s+40\.0%\s+\+30\.0\s+scan src\/a\.ts:1/);
    assert.match(text, /30\.0%\s+10\.0%\s+-20\.0\s+parse src\/b\.ts:3/);
  });
});
