import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Node } from "../objects.ts";
import { matchesNodeSelectorMap, matchesNodeSelectorTerms, matchesTopologySelectorTerms } from "./node-selector.ts";

function node(name: string, labels: Record<string, string>): Node {
  return { apiVersion: "v1", kind: "Node", metadata: { name, labels } };
}

const zoneA = node("node-a", { "topology.kubernetes.io/zone": "a", disks: "4" });

describe("matchesNodeSelectorTerms", () => {
  it("supports In, NotIn, Exists and DoesNotExist, with NotIn matching a missing label", () => {
    const zone = "topology.kubernetes.io/zone";
    const match = (operator: string, values?: string[], key = zone) =>
      matchesNodeSelectorTerms(zoneA, [{ matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] }]);
    assert.equal(match("In", ["a", "b"]), true);
    assert.equal(match("In", ["b"]), false);
    assert.equal(match("NotIn", ["b"]), true);
    assert.equal(match("NotIn", ["a"]), false);
    assert.equal(match("NotIn", ["a"], "rack"), true);
    assert.equal(match("Exists"), true);
    assert.equal(match("DoesNotExist"), false);
    assert.equal(match("DoesNotExist", undefined, "rack"), true);
  });

  it("compares Gt and Lt as integers and never matches a label that is not one", () => {
    const match = (target: Node, operator: string, bound: string) =>
      matchesNodeSelectorTerms(target, [{ matchExpressions: [{ key: "disks", operator, values: [bound] }] }]);
    assert.equal(match(zoneA, "Gt", "3"), true);
    assert.equal(match(zoneA, "Gt", "4"), false);
    assert.equal(match(zoneA, "Lt", "10"), true);
    assert.equal(match(node("odd", { disks: "many" }), "Gt", "1"), false);
  });

  it("ORs terms, ANDs requirements, and skips empty or malformed terms", () => {
    const wrongZone = { key: "topology.kubernetes.io/zone", operator: "In", values: ["b"] };
    const hasDisks = { key: "disks", operator: "Exists" };
    assert.equal(
      matchesNodeSelectorTerms(zoneA, [{ matchExpressions: [wrongZone] }, { matchExpressions: [hasDisks] }]),
      true,
    );
    assert.equal(matchesNodeSelectorTerms(zoneA, [{ matchExpressions: [hasDisks, wrongZone] }]), false);
    assert.equal(matchesNodeSelectorTerms(zoneA, [{}]), false);
    const malformed = { key: "disks", operator: "Gt", values: ["1", "2"] };
    assert.equal(matchesNodeSelectorTerms(zoneA, [{ matchExpressions: [malformed] }]), false);
    assert.equal(
      matchesNodeSelectorTerms(zoneA, [{ matchExpressions: [malformed] }, { matchExpressions: [hasDisks] }]),
      true,
    );
    assert.equal(matchesNodeSelectorTerms(zoneA, []), false);
  });

  it("matches metadata.name through matchFields", () => {
    const byName = (operator: string, name: string) =>
      matchesNodeSelectorTerms(zoneA, [{ matchFields: [{ key: "metadata.name", operator, values: [name] }] }]);
    assert.equal(byName("In", "node-a"), true);
    assert.equal(byName("In", "node-b"), false);
    assert.equal(byName("NotIn", "node-b"), true);
    const wrongField = [{ matchFields: [{ key: "metadata.uid", operator: "In", values: ["x"] }] }];
    assert.equal(matchesNodeSelectorTerms(zoneA, wrongField), false);
  });
});

describe("matchesNodeSelectorMap", () => {
  it("needs every key with exactly its value", () => {
    assert.equal(matchesNodeSelectorMap(undefined, zoneA), true);
    assert.equal(matchesNodeSelectorMap({ disks: "4" }, zoneA), true);
    assert.equal(matchesNodeSelectorMap({ disks: "4", ssd: "true" }, zoneA), false);
  });
});

describe("matchesTopologySelectorTerms", () => {
  it("allows everything without terms and needs one fully matching term otherwise", () => {
    const labels = { "topology.kubernetes.io/zone": "a" };
    assert.equal(matchesTopologySelectorTerms(undefined, labels), true);
    const zoneB = { matchLabelExpressions: [{ key: "topology.kubernetes.io/zone", values: ["b"] }] };
    const zoneAOrC = { matchLabelExpressions: [{ key: "topology.kubernetes.io/zone", values: ["a", "c"] }] };
    assert.equal(matchesTopologySelectorTerms([zoneB], labels), false);
    assert.equal(matchesTopologySelectorTerms([zoneB, zoneAOrC], labels), true);
    assert.equal(matchesTopologySelectorTerms([{}], labels), false);
  });
});
