import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { KubeletTestEnv } from "../testing/kubelet-test-env.ts";

function job(name: string, restartPolicy: "Always" | "OnFailure" | "Never", script: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name },
    spec: {
      restartPolicy,
      containers: [
        {
          name: "main",
          image: "busybox:1.36",
          command: ["sh", "-c", script],
          volumeMounts: [{ name: "work", mountPath: "/work" }],
        },
      ],
      volumes: [{ name: "work", emptyDir: { medium: "Memory" } }],
    },
  };
}

describe("Restart policies", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  async function start(): Promise<KubeletTestEnv> {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    return env;
  }

  it("Never: a container that exits non-zero fails the pod, which keeps its object but not its mounts", async () => {
    const env = await start();
    await env.createPod(job("once", "Never", "sleep 5; exit 2"));
    const tookMs = await env.runUntil(async () => (await env.phase("once")) === "Failed", 60_000, "failed");
    assert.ok(tookMs >= 5_000 && tookMs < 6_000, `failed after ${tookMs} ms`);
    const terminated = (await env.pod("once"))?.status?.containerStatuses?.[0]?.state?.terminated;
    assert.equal(terminated?.exitCode, 2);
    assert.equal(terminated?.reason, "Error");
    await env.runUntil(async () => (await env.mountPoints()).length === 0, 10_000, "tmpfs unmounted");
    assert.equal((await env.pod("once"))?.metadata?.deletionTimestamp, undefined, "the kubelet does not delete it");
  });

  it("OnFailure: a container that exits 0 completes the pod", async () => {
    const env = await start();
    await env.createPod(job("done", "OnFailure", "sleep 1; exit 0"));
    await env.runUntil(async () => (await env.phase("done")) === "Succeeded", 60_000, "succeeded");
    assert.equal((await env.pod("done"))?.status?.containerStatuses?.[0]?.state?.terminated?.reason, "Completed");
  });

  it("Always: a crashing container is restarted at once, then after CrashLoopBackOff delays", async () => {
    const env = await start();
    await env.createPod(job("crash", "Always", "sleep 1; exit 1"));
    const restartCount = async () => (await env.pod("crash"))?.status?.containerStatuses?.[0]?.restartCount;
    const firstRestartMs = await env.runUntil(async () => (await restartCount()) === 1, 5_000, "first restart");
    assert.ok(firstRestartMs < 2_000, `first restart after ${firstRestartMs} ms`);
    await env.runFor(1_500);
    const waiting = (await env.pod("crash"))?.status?.containerStatuses?.[0];
    assert.equal(waiting?.state?.waiting?.reason, "CrashLoopBackOff");
    assert.match(
      waiting?.state?.waiting?.message ?? "",
      /^back-off 10s restarting failed container=main pod=crash_default\(/,
    );
    assert.equal(waiting?.lastState?.terminated?.exitCode, 1);
    assert.equal((await env.pod("crash"))?.status?.phase, "Running");
    const secondRestartMs = await env.runUntil(async () => (await restartCount()) === 2, 15_000, "second restart");
    assert.ok(secondRestartMs > 8_000, `the second restart waits out the 10 s back-off (${secondRestartMs} ms more)`);
    const texts = await env.podEventTexts("crash");
    assert.ok(
      texts.some((text) => text.startsWith("BackOff: Back-off restarting failed container main in pod crash_default(")),
    );
  });
});
