import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ApiError, isConflict, isNotFound } from "../errors.ts";
import type { KObject, Node, Pod } from "../objects.ts";
import type { ResourceType } from "../resources.ts";
import type { Store, UpdateOptions } from "../store/store.ts";
import { clone } from "./copy.ts";
import { InProcessClient } from "./in-process-client.ts";
import { conflictRetryMaxAttempts } from "./retry-on-conflict.ts";
import { newTestApi, testPod } from "./testing/test-api.ts";

/**
 * A store whose next `races` updates are each preceded by a competing write to the same object
 * (a label change by "someone else"), so the caller's write carries a stale resourceVersion.
 */
function racingStore(store: Store, races: number): Store & { racesLeft: () => number } {
  let left = races;
  const racing = Object.create(store) as Store & { racesLeft: () => number };
  racing.racesLeft = () => left;
  racing.update = async <T extends KObject>(type: ResourceType, object: T, options?: UpdateOptions): Promise<T> => {
    if (left > 0) {
      left--;
      const current = await store.get<T>(type, object.metadata?.namespace ?? "", object.metadata?.name ?? "");
      const competing = clone(current);
      competing.metadata = { ...competing.metadata, labels: { ...competing.metadata?.labels, racer: String(left) } };
      await store.update(type, competing);
    }
    return store.update(type, object, options);
  };
  return racing;
}

describe("InProcessClient", () => {
  it("returns frozen objects that must be copied before changing", async () => {
    const { client } = newTestApi();
    const created = await client.pods.create(testPod("default", "web"));
    const fetched = await client.pods.get("default", "web");
    assert.equal(Object.isFrozen(fetched), true);
    assert.throws(() => {
      (fetched.metadata as { name?: string }).name = "other";
    }, TypeError);
    assert.equal(fetched.metadata?.uid, created.metadata?.uid);
    const copy = clone(fetched);
    copy.metadata = { ...copy.metadata, labels: { app: "changed" } };
    const updated = await client.pods.update(copy);
    assert.deepEqual(updated.metadata?.labels, { app: "changed" });
  });

  it('addresses cluster-scoped objects with the namespace ""', async () => {
    const { client } = newTestApi();
    await client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: "node-1" } });
    const node: Node = await client.nodes.get("", "node-1");
    assert.equal(node.metadata?.name, "node-1");
    await assert.rejects(client.nodes.get("", "node-2"), (error) => isNotFound(error));
  });

  it("writes status through updateStatus only", async () => {
    const { client } = newTestApi();
    const pod = await client.pods.create(testPod("default", "web"));
    const withStatus = { ...clone(pod), status: { phase: "Running" } };
    const mainWrite = await client.pods.update(withStatus);
    assert.equal(mainWrite.status?.phase, "Pending", "status is kept as stored by a main-resource update");
    const statusWrite = await client.pods.updateStatus({ ...clone(mainWrite), status: { phase: "Running" } });
    assert.equal(statusWrite.status?.phase, "Running");
  });

  describe("patch", () => {
    it("applies a JSON merge patch to the current object", async () => {
      const { client } = newTestApi();
      await client.pods.create(testPod("default", "web"));
      const patched = await client.pods.patch("default", "web", {
        metadata: { labels: { app: null, tier: "front" }, annotations: { note: "x" } },
      });
      assert.deepEqual(patched.metadata?.labels, { tier: "front" });
      assert.deepEqual(patched.metadata?.annotations, { note: "x" });
      assert.equal(patched.spec?.containers[0]?.image, "busybox");
    });

    it("patches status through the status subresource", async () => {
      const { client } = newTestApi();
      await client.pods.create(testPod("default", "web"));
      const patched = await client.pods.patch(
        "default",
        "web",
        { status: { phase: "Failed" } },
        { subresource: "status" },
      );
      assert.equal(patched.status?.phase, "Failed");
    });

    it("retries when a concurrent write wins the race, keeping both changes", async () => {
      const { store } = newTestApi();
      const racing = racingStore(store, 2);
      const client = new InProcessClient(racing);
      await client.pods.create(testPod("default", "web"));
      const patched = await client.pods.patch("default", "web", { metadata: { annotations: { mine: "yes" } } });
      assert.equal(racing.racesLeft(), 0);
      assert.equal(patched.metadata?.annotations?.mine, "yes");
      assert.equal(patched.metadata?.labels?.racer, "0", "the competing change is kept");
      assert.equal(client.calls.count("patch", "pods"), 1, "one patch request, however many internal attempts");
    });

    it("returns Conflict without retrying when the patch pins a stale resourceVersion", async () => {
      const { client } = newTestApi();
      const created = await client.pods.create(testPod("default", "web"));
      await client.pods.patch("default", "web", { metadata: { labels: { moved: "on" } } });
      await assert.rejects(
        client.pods.patch("default", "web", {
          metadata: { resourceVersion: created.metadata?.resourceVersion ?? "", labels: { late: "yes" } },
        }),
        (error) => isConflict(error),
      );
    });
  });

  describe("mutate", () => {
    it("re-reads and re-applies the change after a Conflict", async () => {
      const { store } = newTestApi();
      const racing = racingStore(store, 1);
      const client = new InProcessClient(racing);
      await client.pods.create(testPod("default", "web"));
      let calls = 0;
      const result = await client.pods.mutate("default", "web", (draft) => {
        calls++;
        draft.metadata = { ...draft.metadata, annotations: { seen: String(calls) } };
      });
      assert.equal(calls, 2);
      assert.equal(result.metadata?.annotations?.seen, "2");
      assert.equal(result.metadata?.labels?.racer, "0");
      assert.equal(client.calls.count("get", "pods"), 2);
      assert.equal(client.calls.count("update", "pods"), 2);
    });

    it(`gives up with Conflict after ${conflictRetryMaxAttempts} attempts`, async () => {
      const { store } = newTestApi();
      const client = new InProcessClient(racingStore(store, 100));
      await client.pods.create(testPod("default", "web"));
      let calls = 0;
      await assert.rejects(
        client.pods.mutate("default", "web", (draft) => {
          calls++;
          draft.metadata = { ...draft.metadata, annotations: { try: String(calls) } };
        }),
        (error) => isConflict(error) && (error as ApiError).code === 409,
      );
      assert.equal(calls, conflictRetryMaxAttempts);
    });

    it("writes nothing when the change function leaves the object as it was", async () => {
      const { client } = newTestApi();
      const created = await client.pods.create(testPod("default", "web"));
      client.calls.reset();
      const result = await client.pods.mutate("default", "web", (draft) => {
        draft.metadata = { ...draft.metadata, labels: { app: "web" } };
      });
      assert.equal(result, created);
      assert.equal(client.calls.describe(), "get pods=1");
    });

    it("writes nothing when the change only reorders fields or sets some to undefined", async () => {
      const { client } = newTestApi();
      const created = await client.pods.create(testPod("default", "web"));
      client.calls.reset();
      const result = await client.pods.mutate("default", "web", (draft) => {
        const { name, ...rest } = draft.metadata ?? {};
        draft.metadata = { ...rest, name, deletionTimestamp: undefined };
      });
      assert.equal(result, created);
      assert.equal(client.calls.describe(), "get pods=1");
    });

    it("writes status when asked to", async () => {
      const { client } = newTestApi();
      await client.pods.create(testPod("default", "web"));
      const result = await client.pods.mutate(
        "default",
        "web",
        (draft) => {
          draft.status = { phase: "Succeeded" };
        },
        { subresource: "status" },
      );
      assert.equal(result.status?.phase, "Succeeded");
      assert.equal(client.calls.count("update", "pods/status"), 1);
    });
  });

  it("counts every call by verb and resource", async () => {
    const { client } = newTestApi();
    const pod: Pod = await client.pods.create(testPod("default", "web"));
    await client.pods.get("default", "web");
    await client.pods.list({ namespace: "default" });
    await client.pods.updateStatus({ ...clone(pod), status: { phase: "Running" } });
    const watch = await client.persistentVolumes.watch({}, () => undefined);
    watch.stop();
    await client.pods.delete("default", "web", { gracePeriodSeconds: 0 });
    assert.equal(
      client.calls.describe(),
      "get pods=1, list pods=1, watch persistentvolumes=1, create pods=1, update pods/status=1, delete pods=1",
    );
  });
});
