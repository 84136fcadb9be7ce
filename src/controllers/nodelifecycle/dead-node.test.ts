/**
 * The control plane's half of "node powered off while holding an RWO volume" (spec §8.2): the node
 * goes Unknown after 40 s, is tainted unreachable, its pod is evicted 300 s later and then stays
 * Terminating because no kubelet confirms it — until an administrator adds the out-of-service
 * taint and pod GC force-deletes it.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { parseRfc3339 } from "../../runtime/clock.ts";
import { type NodeLifecycleTestEnv, startNodeLifecycleTestEnv } from "./testing/node-lifecycle-test-env.ts";

/** Kubernetes' --node-monitor-grace-period: 40 s. */
const nodeMonitorGracePeriodMs = 40_000;
/** Kubernetes' --node-monitor-period: 5 s. */
const nodeMonitorPeriodMs = 5_000;
/** Kubernetes' podgc gcCheckPeriod: 20 s. */
const podGcPeriodMs = 20_000;

let env: NodeLifecycleTestEnv | undefined;

afterEach(async () => {
  await env?.stop();
  env = undefined;
});

const secondMs = 1_000;

describe("a node that is powered off", () => {
  it("is marked Unknown, its pod is evicted after 300 s and stays Terminating until the out-of-service taint", async () => {
    env = await startNodeLifecycleTestEnv();
    await env.addNode("node-a");
    await env.addRunningPod("db-0", "node-a");
    await env.runFor(60 * secondMs);

    env.powerOff("node-a");
    const poweredOffMs = env.api.clock.now();
    await env.runFor(nodeMonitorGracePeriodMs + 3 * nodeMonitorPeriodMs);
    const node = await env.node("node-a");
    assert.equal(node.status?.conditions?.find((condition) => condition.type === "Ready")?.status, "Unknown");
    const noExecute = node.spec?.taints?.find(
      (taint) => taint.key === "node.kubernetes.io/unreachable" && taint.effect === "NoExecute",
    );
    assert.ok(noExecute?.timeAdded, "tainted unreachable:NoExecute");
    const taintedMs = parseRfc3339(noExecute.timeAdded);
    assert.ok(
      taintedMs - poweredOffMs <= 55 * secondMs,
      `tainted ${(taintedMs - poweredOffMs) / 1000} s after power-off`,
    );

    // The default toleration keeps the pod for 300 s after the taint.
    await env.runFor(taintedMs + 299 * secondMs - env.api.clock.now());
    assert.equal((await env.pod("db-0"))?.metadata?.deletionTimestamp, undefined);
    await env.runFor(2 * secondMs);
    const evicted = await env.pod("db-0");
    assert.ok(evicted?.metadata?.deletionTimestamp, "Terminating once the 300 s toleration ran out");

    // Nobody confirms the deletion: the pod stays Terminating, long after its 30 s grace period.
    await env.runFor(30 * 60_000);
    assert.ok((await env.pod("db-0"))?.metadata?.deletionTimestamp, "still Terminating after 30 minutes");

    // Non-graceful node shutdown: the administrator declares the node out of service.
    await env.addTaint("node-a", {
      key: "node.kubernetes.io/out-of-service",
      value: "nodeshutdown",
      effect: "NoExecute",
    });
    await env.runFor(podGcPeriodMs);
    assert.equal(await env.pod("db-0"), undefined, "pod GC force-deleted it within one 20 s period");
  });
});
