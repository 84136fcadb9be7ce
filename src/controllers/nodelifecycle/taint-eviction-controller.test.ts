import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { podCondition } from "../../api/pod-conditions.ts";
import { minTolerationMs } from "./taint-eviction-controller.ts";
import { type NodeLifecycleTestEnv, startNodeLifecycleTestEnv } from "./testing/node-lifecycle-test-env.ts";

let env: NodeLifecycleTestEnv | undefined;

async function setup(): Promise<NodeLifecycleTestEnv> {
  env = await startNodeLifecycleTestEnv();
  await env.addNode("node-1");
  await env.runFor(1_000);
  return env;
}

afterEach(async () => {
  await env?.stop();
  env = undefined;
});

const maintenance = { key: "example.com/maintenance", effect: "NoExecute" };

describe("TaintEvictionController", () => {
  it("deletes a pod that does not tolerate a NoExecute taint at once, gracefully", async () => {
    const env = await setup();
    await env.addRunningPod("web", "node-1");
    await env.addRunningPod("tolerant", "node-1", {
      tolerations: [{ key: "example.com/maintenance", operator: "Exists" }],
    });
    await env.addTaint("node-1", maintenance);
    await env.runFor(100);

    const web = await env.pod("web");
    assert.ok(web?.metadata?.deletionTimestamp, "the pod is Terminating");
    assert.equal(web?.metadata?.deletionGracePeriodSeconds, 30);
    const disruption = podCondition(web?.status, "DisruptionTarget");
    assert.equal(disruption?.reason, "DeletionByTaintManager");
    assert.equal(disruption?.message, "Taint manager: deleting due to NoExecute taint");
    assert.deepEqual(await env.eventsAbout("web"), ["TaintManagerEviction: Marking for deletion Pod shop/web"]);

    await env.runFor(60 * 60_000);
    assert.equal((await env.pod("tolerant"))?.metadata?.deletionTimestamp, undefined);
  });

  it("waits out tolerationSeconds before deleting a pod that tolerates the taint for a while", async () => {
    const env = await setup();
    const tolerations = [
      { key: "example.com/maintenance", operator: "Exists", effect: "NoExecute", tolerationSeconds: 60 },
    ];
    await env.addRunningPod("web", "node-1", { tolerations });
    await env.addTaint("node-1", maintenance);
    await env.runFor(59_000);
    assert.equal((await env.pod("web"))?.metadata?.deletionTimestamp, undefined);
    await env.runFor(1_000);
    assert.ok((await env.pod("web"))?.metadata?.deletionTimestamp);
  });

  it("cancels the pending deletion when the taint goes away in time", async () => {
    const env = await setup();
    const tolerations = [
      { key: "example.com/maintenance", operator: "Exists", effect: "NoExecute", tolerationSeconds: 60 },
    ];
    await env.addRunningPod("web", "node-1", { tolerations });
    await env.addTaint("node-1", maintenance);
    await env.runFor(30_000);
    await env.api.client.nodes.mutate("", "node-1", (draft) => {
      draft.spec = { ...draft.spec, taints: [] };
    });
    await env.runFor(10 * 60_000);
    assert.equal((await env.pod("web"))?.metadata?.deletionTimestamp, undefined);
    assert.deepEqual(await env.eventsAbout("web"), ["TaintManagerEviction: Cancelling deletion of Pod shop/web"]);
  });

  it("says nothing about cancelling when a pod it already evicted is force-deleted", async () => {
    const env = await setup();
    await env.addRunningPod("web", "node-1");
    await env.addTaint("node-1", maintenance);
    await env.runFor(100);
    await env.api.client.pods.delete("shop", "web", { gracePeriodSeconds: 0 });
    await env.runFor(1_000);
    assert.equal(await env.pod("web"), undefined);
    assert.deepEqual(await env.eventsAbout("web"), ["TaintManagerEviction: Marking for deletion Pod shop/web"]);
  });

  it("gives pods without their own not-ready/unreachable tolerations the 300 s admission defaults", async () => {
    const env = await setup();
    await env.addRunningPod("web", "node-1");
    await env.addRunningPod("stays", "node-1", {
      tolerations: [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" }],
    });
    env.powerOff("node-1");
    const taintedAtMs = await whenTainted(env, "node.kubernetes.io/unreachable");
    await env.runFor(taintedAtMs + 299_000 - env.api.clock.now());
    assert.equal((await env.pod("web"))?.metadata?.deletionTimestamp, undefined);
    await env.runFor(1_000);
    assert.ok((await env.pod("web"))?.metadata?.deletionTimestamp, "evicted 300 s after the taint");
    await env.runFor(60 * 60_000);
    assert.equal((await env.pod("stays"))?.metadata?.deletionTimestamp, undefined);
  });
});

/** Lets time pass until the node carries the NoExecute taint `key`; returns when it was observed. */
async function whenTainted(env: NodeLifecycleTestEnv, key: string): Promise<number> {
  for (let step = 0; step < 1_000; step++) {
    const node = await env.node("node-1");
    if (node.spec?.taints?.some((taint) => taint.key === key && taint.effect === "NoExecute"))
      return env.api.clock.now();
    await env.runFor(100);
  }
  assert.fail(`node-1 was never tainted ${key}:NoExecute`);
}

describe("minTolerationMs", () => {
  it("is the shortest limit, 0 when any limit is not positive, and −1 when nothing is limited", () => {
    assert.equal(minTolerationMs([]), 0);
    assert.equal(minTolerationMs([{ operator: "Exists" }]), -1);
    assert.equal(
      minTolerationMs([{ tolerationSeconds: 300 }, { tolerationSeconds: 60 }, { operator: "Exists" }]),
      60_000,
    );
    assert.equal(minTolerationMs([{ tolerationSeconds: 300 }, { tolerationSeconds: 0 }]), 0);
  });
});
