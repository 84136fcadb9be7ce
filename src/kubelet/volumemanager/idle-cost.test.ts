import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { KubeletTestEnv } from "../testing/kubelet-test-env.ts";

/**
 * An idle node must cost (almost) nothing (DESIGN.md, Cost model): the volume manager's 100 ms
 * loops park while there is nothing to do, and a change still reaches them at once.
 */
const idleSpanMs = 20_000;
/** The node status, lease and housekeeping loops alone; the two 100 ms loops would add 20 per second. */
const maxIdleTasksPerVirtualSecond = 5;

function scratchPod(name: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name },
    spec: {
      containers: [{ name: "app", image: "busybox:1.36", volumeMounts: [{ name: "scratch", mountPath: "/scratch" }] }],
      volumes: [{ name: "scratch", emptyDir: {} }],
    },
  };
}

async function tasksPerVirtualSecondOver(env: KubeletTestEnv, spanMs: number): Promise<number> {
  const tasks = await env.clock.advanceBy(spanMs);
  return tasks / (spanMs / 1_000);
}

describe("volume manager on an idle node", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  it("schedules almost no work while no pod comes or goes, before and after a pod's whole life", async () => {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    await env.runFor(5_000);
    const idleBefore = await tasksPerVirtualSecondOver(env, idleSpanMs);
    assert.ok(idleBefore <= maxIdleTasksPerVirtualSecond, `idle node ran ${idleBefore} tasks per virtual second`);

    await env.createPod(scratchPod("app"));
    const uid = (await env.pod("app"))?.metadata?.uid ?? "";
    await env.runUntil(async () => (await env.phase("app")) === "Running", 60_000, "pod Running");
    assert.deepEqual([...env.kubelet.volumeManager.getMountedVolumesForPod(uid).keys()], ["scratch"]);

    await env.client.pods.delete("default", "app");
    await env.runUntil(async () => (await env.pod("app")) === undefined, 120_000, "pod gone");
    await env.runUntil(
      () => env.kubelet.volumeManager.getMountedVolumesForPod(uid).size === 0,
      60_000,
      "emptyDir unmounted",
    );
    await env.runFor(5_000);
    const idleAfter = await tasksPerVirtualSecondOver(env, idleSpanMs);
    assert.ok(idleAfter <= maxIdleTasksPerVirtualSecond, `idle node ran ${idleAfter} tasks per virtual second`);
  });
});
