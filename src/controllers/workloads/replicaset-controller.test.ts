import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { ReplicaSet } from "../../api/objects.ts";
import { ReplicaSetController } from "./replicaset-controller.ts";
import { startWorkloadTestEnv, type WorkloadTestEnv } from "./testing/workload-test-env.ts";

const tenSecondsMs = 10_000;

function replicaSet(replicas: number): ReplicaSet {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { namespace: "default", name: "web-7d4b9c" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx" }] } },
    },
  };
}

describe("ReplicaSet controller", () => {
  let env: WorkloadTestEnv;
  afterEach(async () => env.stop());

  async function start(): Promise<WorkloadTestEnv> {
    env = await startWorkloadTestEnv((context) => [new ReplicaSetController(context)]);
    return env;
  }

  async function scaleTo(replicas: number): Promise<void> {
    await env.api.client.replicaSets.mutate("default", "web-7d4b9c", (draft) => {
      if (draft.spec) draft.spec.replicas = replicas;
    });
    await env.runFor(tenSecondsMs);
  }

  it("creates exactly spec.replicas pods named after the set, owned by it, and says so", async () => {
    await start();
    const set = await env.api.client.replicaSets.create(replicaSet(5));
    await env.runFor(tenSecondsMs);

    const pods = await env.pods();
    assert.equal(pods.length, 5);
    for (const pod of pods) {
      assert.match(pod.metadata?.name ?? "", /^web-7d4b9c-[a-z0-9]{5}$/);
      assert.equal(pod.metadata?.labels?.app, "web");
      assert.deepEqual(pod.metadata?.ownerReferences, [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: "web-7d4b9c",
          uid: set.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    const created = (await env.eventTexts()).filter((text) =>
      text.startsWith("SuccessfulCreate: Created pod: web-7d4b9c-"),
    );
    assert.equal(created.length, 5);
    const status = (await env.api.client.replicaSets.get("default", "web-7d4b9c")).status;
    assert.equal(status?.replicas, 5);
    assert.equal(status?.readyReplicas, 0);
  });

  it("replaces a terminating pod at once, while the old one is still there", async () => {
    await start();
    await env.api.client.replicaSets.create(replicaSet(1));
    await env.runFor(tenSecondsMs);
    const [old] = await env.podNames();
    await env.startPod("default", old ?? "");
    await env.runFor(tenSecondsMs);

    await env.api.client.pods.delete("default", old ?? "");
    await env.runFor(tenSecondsMs);
    const pods = await env.pods();
    assert.equal(pods.length, 2);
    const stillThere = pods.find((pod) => pod.metadata?.name === old);
    assert.notEqual(stillThere?.metadata?.deletionTimestamp, undefined, "the old pod is Terminating");
    const replacement = pods.find((pod) => pod.metadata?.name !== old);
    assert.equal(replacement?.metadata?.deletionTimestamp, undefined);
    assert.equal((await env.api.client.replicaSets.get("default", "web-7d4b9c")).status?.replicas, 1);
  });

  it("scales down the unscheduled pod first, then the newest", async () => {
    await start();
    await env.api.client.replicaSets.create(replicaSet(1));
    await env.runFor(tenSecondsMs);
    const [oldest] = await env.podNames();
    await env.startPod("default", oldest ?? "");
    await scaleTo(2);
    const newer = (await env.podNames()).find((name) => name !== oldest) ?? "";
    await env.startPod("default", newer);
    await scaleTo(3);
    const unscheduled = (await env.podNames()).find((name) => name !== oldest && name !== newer) ?? "";

    await scaleTo(2);
    assert.deepEqual(await env.podNames(), [oldest, newer].sort(), "the unscheduled pod went first (deleted at once)");
    await scaleTo(1);
    const newerPod = await env.api.client.pods.get("default", newer);
    assert.notEqual(newerPod.metadata?.deletionTimestamp, undefined, "then the newest");
    const oldestPod = await env.api.client.pods.get("default", oldest ?? "");
    assert.equal(oldestPod.metadata?.deletionTimestamp, undefined);
    assert.ok((await env.eventTexts()).includes(`SuccessfulDelete: Deleted pod: ${unscheduled}`));
  });
});
