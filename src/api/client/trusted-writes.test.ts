import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../errors.ts";
import type { Event, Node } from "../objects.ts";
import { clone } from "./copy.ts";
import { InProcessClient } from "./in-process-client.ts";
import { newTestApi, testPod } from "./testing/test-api.ts";

const isInvalidError = (error: unknown): boolean => isApiError(error, "Invalid");

const nodeWithNegativeCpu = (node: Node): Node => ({
  ...clone(node),
  status: { capacity: { cpu: "-1" } },
});

const eventInWrongNamespace: Event = {
  apiVersion: "v1",
  kind: "Event",
  metadata: { name: "web.1", namespace: "default" },
  involvedObject: { kind: "Pod", namespace: "other", name: "web" },
  reason: "Started",
  message: "Started container main",
};

describe("an in-process component's client (trustedWrites)", () => {
  it("stores a status write that a user's client would have refused as invalid", async () => {
    const { store, client } = newTestApi();
    const components = new InProcessClient(store, { calls: client.calls, trustedWrites: true });
    const node = await client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: "node-1" } });
    await assert.rejects(client.nodes.updateStatus(nodeWithNegativeCpu(node)), isInvalidError);
    const written = await components.nodes.updateStatus(nodeWithNegativeCpu(node));
    assert.equal(written.status?.capacity?.cpu, "-1");
    assert.equal(client.calls.count("update", "nodes/status"), 2, "both calls are counted once, on one counter");
  });

  it("stores its Events unvalidated, a user's Event is still checked", async () => {
    const { store, client } = newTestApi();
    const components = new InProcessClient(store, { trustedWrites: true });
    await assert.rejects(client.events.create(eventInWrongNamespace), isInvalidError);
    const created = await components.events.create(eventInWrongNamespace);
    assert.equal(created.involvedObject.namespace, "other");
  });

  it("still validates its creates and spec writes of every other kind", async () => {
    const { store } = newTestApi();
    const components = new InProcessClient(store, { trustedWrites: true });
    await assert.rejects(
      components.pods.create({ ...testPod("default", "web"), spec: { containers: [] } }),
      isInvalidError,
    );
    const pod = await components.pods.create(testPod("default", "web"));
    const renamedContainer = clone(pod);
    renamedContainer.spec = { ...pod.spec, containers: [{ name: "other", image: "busybox" }] };
    await assert.rejects(components.pods.update(renamedContainer), isInvalidError);
  });

  it("keeps the store's own checks: a status write changes only status", async () => {
    const { store } = newTestApi();
    const components = new InProcessClient(store, { trustedWrites: true });
    const pod = await components.pods.create(testPod("default", "web"));
    const written = await components.pods.updateStatus({
      ...clone(pod),
      metadata: { ...pod.metadata, labels: { app: "changed" } },
      status: { phase: "Running" },
    });
    assert.equal(written.status?.phase, "Running");
    assert.deepEqual(written.metadata?.labels, { app: "web" });
  });
});
