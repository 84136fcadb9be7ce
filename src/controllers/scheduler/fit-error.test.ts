import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fitErrorMessage } from "./fit-error.ts";

describe("fitErrorMessage", () => {
  it("counts each reason and sorts the counted strings as Go's sort.Strings does", () => {
    const nodeReasons = new Map<string, readonly string[]>();
    for (let index = 0; index < 10; index++) nodeReasons.set(`cordoned-${index}`, ["node(s) were unschedulable"]);
    nodeReasons.set("a", [
      "node(s) had volume node affinity conflict",
      "node(s) didn't find available persistent volumes to bind",
    ]);
    nodeReasons.set("b", ["node(s) had volume node affinity conflict"]);
    assert.equal(
      fitErrorMessage(12, { nodeReasons }),
      "0/12 nodes are available: 1 node(s) didn't find available persistent volumes to bind, " +
        "10 node(s) were unschedulable, 2 node(s) had volume node affinity conflict.",
    );
  });

  it("shows only the PreFilter message when PreFilter rejected the pod", () => {
    assert.equal(
      fitErrorMessage(3, {
        preFilterMessage: "pod has unbound immediate PersistentVolumeClaims",
        nodeReasons: new Map(),
      }),
      "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.",
    );
  });
});
