import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../errors.ts";
import type { Event, Node, Pod } from "../objects.ts";
import { parseFieldRequirements, parseFieldSelector } from "./fields.ts";

const scheduled: Pod = {
  metadata: { name: "web-0", namespace: "shop" },
  spec: { nodeName: "node-1", containers: [] },
  status: { phase: "Running" },
};
const pending: Pod = { metadata: { name: "web-1", namespace: "shop" }, spec: { containers: [] } };

describe("parseFieldSelector", () => {
  it("selects pods by node, phase and name", () => {
    assert.equal(parseFieldSelector("Pod", "spec.nodeName=node-1").matches(scheduled), true);
    assert.equal(parseFieldSelector("Pod", "spec.nodeName==node-1").matches(pending), false);
    assert.equal(parseFieldSelector("Pod", "spec.nodeName=").matches(pending), true);
    assert.equal(parseFieldSelector("Pod", "status.phase!=Succeeded,metadata.name=web-0").matches(scheduled), true);
    assert.equal(parseFieldSelector("Pod", "metadata.namespace=shop,status.phase=Pending").matches(scheduled), false);
  });

  it("selects events by involved object, reason and source", () => {
    const event: Event = {
      metadata: { name: "web-0.1", namespace: "shop" },
      involvedObject: { kind: "Pod", name: "web-0", namespace: "shop" },
      reason: "FailedMount",
      type: "Warning",
      source: { component: "kubelet" },
    };
    const selector = parseFieldSelector(
      "Event",
      "involvedObject.kind=Pod,involvedObject.name=web-0,reason=FailedMount,source=kubelet,type=Warning",
    );
    assert.equal(selector.matches(event), true);
    assert.equal(parseFieldSelector("Event", "involvedObject.name=web-1").matches(event), false);
  });

  it("reads an unset boolean as false, like Kubernetes", () => {
    const node: Node = { metadata: { name: "node-1" }, spec: {} };
    assert.equal(parseFieldSelector("Node", "spec.unschedulable=false").matches(node), true);
    assert.equal(parseFieldSelector("Node", "spec.unschedulable=true").matches(node), false);
  });

  it("rejects a field the kind cannot be selected by, in Kubernetes' words", () => {
    assert.throws(
      () => parseFieldSelector("PersistentVolume", "spec.claimRef.name=x"),
      (err: unknown) =>
        isApiError(err, "BadRequest") && err.message === "field label not supported: spec.claimRef.name",
    );
    assert.throws(() => parseFieldSelector("ConfigMap", "status.phase=x"), /field label not supported: status.phase/);
  });

  it("rejects a term without an operator", () => {
    assert.throws(() => parseFieldSelector("Pod", "spec.nodeName"), /can't understand 'spec.nodeName'/);
  });

  it("unescapes values and exposes the pinned value for indexes", () => {
    assert.deepEqual(parseFieldRequirements("metadata.name=a\\,b\\=c,spec.nodeName!=x"), [
      { field: "metadata.name", operator: "=", value: "a,b=c" },
      { field: "spec.nodeName", operator: "!=", value: "x" },
    ]);
    const selector = parseFieldSelector("Pod", "spec.nodeName=node-1,status.phase!=Failed");
    assert.equal(selector.exactValue("spec.nodeName"), "node-1");
    assert.equal(selector.exactValue("status.phase"), undefined);
    assert.equal(selector.toString(), "spec.nodeName=node-1,status.phase!=Failed");
  });

  it("matches everything when empty", () => {
    assert.equal(parseFieldSelector("Pod", "").isEverything(), true);
    assert.equal(parseFieldSelector("Pod", undefined).matches(pending), true);
  });
});
