import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CpuProfile, formatProfileSummary, summariseCpuProfile } from "./cpu-profile-summary.ts";

const root = "/repo";

/**
 * (root) → main (a.ts:10) → helper (b.ts:5) → main again (recursion); (root) → (garbage collector).
 * Five samples of 1, 1, 2, 1 ms and a last one of the mean, 1.2 ms.
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1, columnNumber: -1 }, children: [2, 5] },
    {
      id: 2,
      callFrame: { functionName: "main", url: "file:///repo/src/a.ts", lineNumber: 9, columnNumber: 0 },
      children: [3],
    },
    {
      id: 3,
      callFrame: { functionName: "helper", url: "file:///repo/src/b.ts", lineNumber: 4, columnNumber: 2 },
      children: [4],
    },
    { id: 4, callFrame: { functionName: "main", url: "file:///repo/src/a.ts", lineNumber: 9, columnNumber: 0 } },
    { id: 5, callFrame: { functionName: "(garbage collector)", url: "", lineNumber: -1, columnNumber: -1 } },
  ],
  startTime: 0,
  endTime: 6_000,
  samples: [3, 3, 2, 4, 5],
  timeDeltas: [0, 1_000, 1_000, 2_000, 1_000],
};

describe("CPU profile summary", () => {
  it("gives each function its self time and its total time with file:line, recursion counted once", () => {
    const summary = summariseCpuProfile(profile, { top: 10, by: "total", root });
    assert.equal(summary.sampledMs, 6.2);
    assert.deepEqual(summary.functions, [
      { function: "main src/a.ts:10", selfMs: 3, totalMs: 5 },
      { function: "helper src/b.ts:5", selfMs: 2, totalMs: 3 },
      { function: "(garbage collector)", selfMs: 1.2, totalMs: 1.2 },
    ]);
  });

  it("sorts by self time and keeps the top N", () => {
    const summary = summariseCpuProfile(profile, { top: 2, by: "self", root });
    assert.deepEqual(
      summary.functions.map((cost) => cost.function),
      ["main src/a.ts:10", "helper src/b.ts:5"],
    );
  });

  it("prints a table with shares of the sampled time", () => {
    const text = formatProfileSummary(summariseCpuProfile(profile, { top: 1, by: "self", root }), "top 1 by self");
    assert.equal(
      text,
      [
        "top 1 by self (6 ms sampled)",
        "self ms  self %  total ms  total %  function",
        "    3.0   48.4%       5.0    80.6%  main src/a.ts:10",
        "",
      ].join("\n"),
    );
  });
});
