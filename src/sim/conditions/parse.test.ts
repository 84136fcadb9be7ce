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
