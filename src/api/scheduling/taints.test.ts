import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  findUntoleratedTaint,
  matchingTolerations,
  type Taint,
  taintExists,
  taintKeyExists,
  taintNodeUnreachable,
  toleratesTaint,
} from "./taints.ts";

const unreachableNoExecute: Taint = { key: taintNodeUnreachable, effect: "NoExecute" };
const dedicated: Taint = { key: "dedicated", value: "gpu", effect: "NoSchedule" };

describe("toleratesTaint", () => {
  it("Equal (or no operator) needs key, value and effect to match", () => {
    assert.equal(
      toleratesTaint({ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }, dedicated),
      true,
    );
    assert.equal(toleratesTaint({ key: "dedicated", value: "gpu" }, dedicated), true);
    assert.equal(toleratesTaint({ key: "dedicated", value: "db" }, dedicated), false);
    assert.equal(toleratesTaint({ key: "dedicated", value: "gpu", effect: "NoExecute" }, dedicated), false);
  });

  it("Exists ignores the value; an empty key with Exists tolerates every taint", () => {
    assert.equal(toleratesTaint({ key: "dedicated", operator: "Exists" }, dedicated), true);
    assert.equal(toleratesTaint({ operator: "Exists" }, dedicated), true);
    assert.equal(toleratesTaint({ operator: "Exists", effect: "NoExecute" }, dedicated), false);
  });

  it("an unknown operator tolerates nothing", () => {
    assert.equal(toleratesTaint({ key: "dedicated", operator: "Lt", value: "gpu" }, dedicated), false);
  });
});

describe("findUntoleratedTaint and matchingTolerations", () => {
  it("returns the first selected taint nobody tolerates, in the node's order", () => {
    const taints = [{ key: "soft", effect: "PreferNoSchedule" }, dedicated, unreachableNoExecute];
    const hard = (taint: Taint) => taint.effect === "NoSchedule" || taint.effect === "NoExecute";
    assert.deepEqual(findUntoleratedTaint(taints, [], hard), dedicated);
    assert.deepEqual(
      findUntoleratedTaint(taints, [{ key: "dedicated", operator: "Exists" }], hard),
      unreachableNoExecute,
    );
    assert.equal(findUntoleratedTaint(taints, [{ operator: "Exists" }], hard), undefined);
  });

  it("lists the toleration used for each taint, or reports that one is not tolerated", () => {
    const forever = { key: "dedicated", operator: "Exists" };
    const fiveMinutes = { key: taintNodeUnreachable, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 };
    assert.deepEqual(matchingTolerations([dedicated, unreachableNoExecute], [fiveMinutes, forever]), {
      allTolerated: true,
      used: [forever, fiveMinutes],
    });
    assert.deepEqual(matchingTolerations([dedicated, unreachableNoExecute], [forever]), {
      allTolerated: false,
      used: [],
    });
  });

  it("identifies taints by key and effect", () => {
    assert.equal(taintExists([dedicated], { key: "dedicated", value: "other", effect: "NoSchedule" }), true);
    assert.equal(taintExists([dedicated], { key: "dedicated", effect: "NoExecute" }), false);
    assert.equal(taintKeyExists([unreachableNoExecute], taintNodeUnreachable), true);
    assert.equal(taintKeyExists(undefined, taintNodeUnreachable), false);
  });
});
