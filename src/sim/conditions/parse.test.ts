import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseCondition } from "./parse.ts";
import { ConditionSyntaxError } from "./tokens.ts";

/** The reason and column of the error `source` gets. */
function errorOf(source: string): { reason: string; column: number } {
  try {
    parseCondition(source);
  } catch (error) {
    assert.ok(error instanceof ConditionSyntaxError, `expected a ConditionSyntaxError, got ${String(error)}`);
    return { reason: error.reason, column: error.column };
  }
  assert.fail(`"${source}" parsed`);
}

describe("condition parser", () => {
  it("reads a property check, defaulting the namespace", () => {
    assert.deepEqual(parseCondition("pod web-0 phase is Running"), {
      type: "property",
      object: { kind: "Pod", namespace: "default", name: "web-0" },
      property: "phase",
      value: "Running",
    });
  });

  it("reads namespaces, cluster-scoped kinds and kubectl's kind words", () => {
    assert.deepEqual(parseCondition("pvc sock-shop/user-pvc phase is Bound"), {
      type: "property",
      object: { kind: "PersistentVolumeClaim", namespace: "sock-shop", name: "user-pvc" },
      property: "phase",
      value: "Bound",
    });
    assert.deepEqual(parseCondition("node node-a ready is Unknown"), {
      type: "property",
      object: { kind: "Node", namespace: "", name: "node-a" },
      property: "ready",
      value: "Unknown",
    });
  });

  it("reads attachment counts by volume or by claim", () => {
    assert.deepEqual(parseCondition("volumeattachments of pv pvc-1 count is 1"), {
      type: "attachment-count",
      volume: { kind: "PersistentVolume", namespace: "", name: "pvc-1" },
      count: { comparison: "exactly", count: 1 },
    });
    assert.deepEqual(parseCondition("volumeattachments of pvc data-web-0 count is 0"), {
      type: "attachment-count",
      volume: { kind: "PersistentVolumeClaim", namespace: "default", name: "data-web-0" },
      count: { comparison: "exactly", count: 0 },
    });
  });

  it("reads a mount check without a node as one on the pod's own node", () => {
    assert.deepEqual(parseCondition("mount of pod web-0 volume data is healthy"), {
      type: "mount",
      pod: { kind: "Pod", namespace: "default", name: "web-0" },
      volume: "data",
      health: "healthy",
    });
    assert.equal(
      errorOf("mount of pod web-0 volume data at node-a is healthy").reason,
      'expected "on" or "is" after "data", found "at"',
    );
  });

  it("reads count comparisons", () => {
    const counts = ["is 3", "is at most 3", "is at least 3", "is more than 3", "is less than 3"].map((words) => {
      const parsed = parseCondition(`volumeattachments of pv a count ${words}`);
      return parsed.type === "attachment-count" ? parsed.count.comparison : undefined;
    });
    assert.deepEqual(counts, ["exactly", "at most", "at least", "more than", "less than"]);
    assert.deepEqual(errorOf("volumeattachments of pv a count is about 3"), {
      reason:
        'expected a whole number after "count is" (N, at most N, at least N, more than N, less than N), found "about"',
      column: 36,
    });
  });

  it("reads node volume lists: contains a claim, a PV or a unique name, or a count", () => {
    assert.deepEqual(parseCondition("node node-a volumesAttached contains pvc shop/data"), {
      type: "node-volumes-contain",
      node: { kind: "Node", namespace: "", name: "node-a" },
      list: "volumesAttached",
      volume: { kind: "object", object: { kind: "PersistentVolumeClaim", namespace: "shop", name: "data" } },
    });
    assert.deepEqual(parseCondition('node node-a volumesinuse contains "kubernetes.io/csi/x^y"'), {
      type: "node-volumes-contain",
      node: { kind: "Node", namespace: "", name: "node-a" },
      list: "volumesInUse",
      volume: { kind: "unique-name", name: "kubernetes.io/csi/x^y" },
    });
    assert.deepEqual(parseCondition("node node-a volumesInUse count is 0"), {
      type: "node-volumes-count",
      node: { kind: "Node", namespace: "", name: "node-a" },
      list: "volumesInUse",
      count: { comparison: "exactly", count: 0 },
    });
    assert.equal(
      errorOf("node node-a volumesAttached has pvc data").reason,
      'expected "contains" or "count" after "volumesAttached", found "has"',
    );
    assert.match(
      errorOf("node node-a volumes is 1").reason,
      /known: ready, schedulable, fenced, taint, volumesAttached, volumesInUse/,
    );
  });

  it("reads write counts of an object, its status, or a whole kind, within a window", () => {
    assert.deepEqual(parseCondition("writes to pod web-0 status within 1m count is at most 10"), {
      type: "write-count",
      object: { kind: "Pod", namespace: "default", name: "web-0" },
      status: true,
      windowMs: 60_000,
      count: { comparison: "at most", count: 10 },
    });
    assert.deepEqual(parseCondition("writes to pvc count is more than 0"), {
      type: "write-count",
      object: { kind: "PersistentVolumeClaim", namespace: "" },
      status: false,
      count: { comparison: "more than", count: 0 },
    });
    assert.equal(errorOf("writes to pod web-0 within soon count is 1").column, 28);
    assert.equal(errorOf("writes of pod web-0 count is 1").reason, 'expected "to" after "writes", found "of"');
  });

  it("binds each name pattern where all its uses meet", () => {
    const both = parseCondition("pod web-* phase is Running and pod web-* node is node-b");
    assert.equal(both.type, "bind");
    assert.equal(both.type === "bind" && both.body.type, "and");
    const negated = parseCondition("not pod web-* status is Terminating");
    assert.equal(negated.type === "not" && negated.operand.type, "bind", "bound inside the not: no web-* pod");
    const twoPatterns = parseCondition("pod web-* phase is Running and pv pvc-* phase is Bound");
    assert.equal(twoPatterns.type, "and", "patterns used once are bound at their own check");
    assert.deepEqual(parseCondition("pod web-0 phase is Running").type, "property", "a plain name binds nothing");
  });

  it("reads mount health checks", () => {
    assert.deepEqual(parseCondition("mount of pod web-0 volume data on node-a is corrupted"), {
      type: "mount",
      pod: { kind: "Pod", namespace: "default", name: "web-0" },
      volume: "data",
      node: "node-a",
      health: "corrupted",
    });
  });

  it("binds not tighter than and, and tighter than or; parentheses group", () => {
    const a = "pod a is absent";
    const parsed = parseCondition(`not ${a} and ${a} or ${a}`);
    assert.equal(parsed.type, "or");
    assert.equal(parsed.type === "or" && parsed.operands[0]?.type, "and");
    const grouped = parseCondition(`not (${a} or ${a})`);
    assert.equal(grouped.type === "not" && grouped.operand.type, "or");
  });

  it("takes quoted values and case-insensitive keywords and enumerated values", () => {
    const parsed = parseCondition('POD web-0 STATUS IS "Init:0/1"');
    assert.equal(parsed.type === "property" && parsed.value, "Init:0/1");
    const phase = parseCondition("pod web-0 phase is running");
    assert.equal(phase.type === "property" && phase.value, "Running");
  });

  it("points at the column of what is wrong", () => {
    assert.deepEqual(errorOf("pod web-0 phase Running"), {
      reason: 'expected "is" after "phase", found "Running"',
      column: 17,
    });
    assert.deepEqual(errorOf("pod web-0 phase is Runing"), {
      reason: '"Runing" is not a pod phase (one of Pending, Running, Succeeded, Failed, Unknown)',
      column: 20,
    });
    assert.equal(errorOf("pdo web-0 phase is Running").column, 1);
    assert.match(
      errorOf("pod web-0 colour is red").reason,
      /pod has no property "colour" \(known: phase, node, ready, status/,
    );
    assert.deepEqual(errorOf("pod web-0 phase is"), { reason: 'expected a value after "is"', column: 19 });
    assert.equal(errorOf("(pod a is absent").column, 17);
    assert.equal(errorOf("pod a is absent )").reason, '")" has no matching "("');
    assert.equal(
      errorOf("node ns/node-a ready is True").reason,
      'node is cluster-scoped: name it without a namespace, not "ns/node-a"',
    );
    assert.equal(errorOf("volumeattachments of pod x count is 1").column, 22);
    assert.equal(errorOf('pod a status is "unterminated').reason, "unterminated quoted text");
  });

  it("shows the condition with a caret under the error", () => {
    try {
      parseCondition("pod web-0 phase Running");
      assert.fail("parsed");
    } catch (error) {
      assert.ok(error instanceof ConditionSyntaxError);
      assert.equal(
        error.pointed(),
        'expected "is" after "phase", found "Running" at column 17\n  pod web-0 phase Running\n                  ^',
      );
    }
  });
});
