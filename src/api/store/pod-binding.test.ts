import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { newTestApi, testPod } from "../client/testing/test-api.ts";
import { ApiError } from "../errors.ts";

function rejectsWith(reason: string, message: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    assert.equal(error.reason, reason);
    assert.equal(error.message, message);
    return true;
  };
}

describe("pods/binding", () => {
  it("assigns an unscheduled pod to the node and marks it PodScheduled", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("shop", "web-0"));
    await api.clock.advanceBy(7_000);
    await api.client.pods.bind("shop", "web-0", "node-1", { annotations: { "example.com/placed-by": "test" } });

    const pod = await api.client.pods.get("shop", "web-0");
    assert.equal(pod.spec?.nodeName, "node-1");
    assert.equal(pod.metadata?.annotations?.["example.com/placed-by"], "test");
    assert.deepEqual(pod.status?.conditions, [
      { type: "PodScheduled", status: "True", lastTransitionTime: formatRfc3339(api.clock.now()) },
    ]);
    assert.equal(pod.status?.phase, "Pending");
    assert.equal(api.client.calls.count("create", "pods/binding"), 1);
  });

  it("refuses to move a pod that already has a node, with Kubernetes' Conflict", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("shop", "web-0"));
    await api.client.pods.bind("shop", "web-0", "node-1");
    await assert.rejects(
      api.client.pods.bind("shop", "web-0", "node-2"),
      rejectsWith(
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "web-0": pod web-0 is already assigned to node "node-1"',
      ),
    );
    assert.equal((await api.client.pods.get("shop", "web-0")).spec?.nodeName, "node-1");
  });

  it("refuses a pod created with spec.nodeName already set", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("shop", "pinned", "node-3"));
    await assert.rejects(
      api.client.pods.bind("shop", "pinned", "node-1"),
      rejectsWith(
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "pinned": pod pinned is already assigned to node "node-3"',
      ),
    );
  });

  it("says NotFound for a pod that does not exist", async () => {
    const api = newTestApi();
    await assert.rejects(
      api.client.pods.bind("shop", "ghost", "node-1"),
      rejectsWith("NotFound", 'pods "ghost" not found'),
    );
  });

  it("refuses a pod that is being deleted", async () => {
    const api = newTestApi();
    const pod = testPod("shop", "leaving");
    pod.metadata = { ...pod.metadata, finalizers: ["example.com/hold"] };
    await api.client.pods.create(pod);
    await api.client.pods.delete("shop", "leaving");
    await assert.rejects(
      api.client.pods.bind("shop", "leaving", "node-1"),
      rejectsWith(
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "leaving": pod leaving is being deleted, cannot be assigned to a host',
      ),
    );
  });

  it("refuses a pod whose uid is not the one the binder saw (the pod was recreated)", async () => {
    const api = newTestApi();
    const created = await api.client.pods.create(testPod("shop", "web-0"));
    await assert.rejects(api.client.pods.bind("shop", "web-0", "node-1", { uid: "not-the-uid" }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.reason, "Conflict");
      assert.match(error.message, /Precondition failed: UID in precondition: not-the-uid, UID in object meta: /);
      return true;
    });
    await api.client.pods.bind("shop", "web-0", "node-1", { uid: created.metadata?.uid ?? "" });
    assert.equal((await api.client.pods.get("shop", "web-0")).spec?.nodeName, "node-1");
  });

  it("requires a target node name", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("shop", "web-0"));
    await assert.rejects(
      api.client.pods.bind("shop", "web-0", ""),
      rejectsWith("Invalid", 'Binding "web-0" is invalid: target.name: Required value'),
    );
  });

  it("refuses a pod with scheduling gates", async () => {
    const api = newTestApi();
    const pod = testPod("shop", "gated");
    pod.spec = { ...pod.spec, containers: pod.spec?.containers ?? [], schedulingGates: [{ name: "example.com/wait" }] };
    await api.client.pods.create(pod);
    await assert.rejects(
      api.client.pods.bind("shop", "gated", "node-1"),
      rejectsWith(
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates',
      ),
    );
  });

  it("turns PodScheduled=False (Unschedulable) into True with a new transition time", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("shop", "web-0"));
    await api.client.pods.mutate(
      "shop",
      "web-0",
      (draft) => {
        draft.status = {
          ...draft.status,
          conditions: [
            {
              type: "PodScheduled",
              status: "False",
              reason: "Unschedulable",
              message: "0/1 nodes are available: 1 node(s) were unschedulable.",
              lastTransitionTime: formatRfc3339(api.clock.now()),
            },
          ],
        };
      },
      { subresource: "status" },
    );
    await api.clock.advanceBy(30_000);
    await api.client.pods.bind("shop", "web-0", "node-1");
    const conditions = (await api.client.pods.get("shop", "web-0")).status?.conditions;
    assert.deepEqual(conditions, [
      { type: "PodScheduled", status: "True", lastTransitionTime: formatRfc3339(api.clock.now()) },
    ]);
  });
});
