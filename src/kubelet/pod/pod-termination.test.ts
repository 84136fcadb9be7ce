import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { KubeletTestEnv } from "../testing/kubelet-test-env.ts";

const podsDir = "/var/lib/kubelet/pods";

function podWithSecret(name: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name },
    spec: {
      terminationGracePeriodSeconds: 30,
      containers: [
        {
          name: "app",
          image: "busybox:1.36",
          volumeMounts: [
            { name: "token", mountPath: "/var/run/token" },
            { name: "scratch", mountPath: "/scratch" },
          ],
        },
      ],
      volumes: [
        { name: "token", secret: { secretName: "token" } },
        { name: "scratch", emptyDir: {} },
      ],
    },
  };
}

async function startWithSecret(): Promise<KubeletTestEnv> {
  const env = await KubeletTestEnv.start();
  await env.client.secrets.create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { namespace: "default", name: "token" },
    data: { token: Buffer.from("abc").toString("base64") },
  });
  return env;
}

async function runningPod(env: KubeletTestEnv, name: string): Promise<string> {
  const pod = await env.createPod(podWithSecret(name));
  await env.runUntil(async () => (await env.phase(name)) === "Running", 10_000, `${name} running`);
  return pod.metadata?.uid ?? "";
}

describe("Pod termination", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  it("stops the containers, unmounts, and removes the pod only after its volume directories are gone", async () => {
    const env = await startWithSecret();
    envs.push(env);
    const uid = await runningPod(env, "web");
    const secretDir = `${podsDir}/${uid}/volumes/kubernetes.io~secret/token`;
    assert.deepEqual(await env.mountPoints(), [secretDir]);

    await env.client.pods.delete("default", "web");
    const tookMs = await env.runUntil(async () => (await env.pod("web")) === undefined, 60_000, "web removed");
    assert.ok(tookMs < 2_000, `removed after ${tookMs} ms`);
    assert.deepEqual(await env.mountPoints(), []);
    await assert.rejects(env.host.stat(secretDir), /no such file or directory/);

    const lines = env.logLines();
    const cleaned = lines.findIndex((line) => line.includes("Pod termination cleaned up volume paths"));
    const removed = lines.findIndex((line) => line.includes("Pod fully terminated and removed from etcd"));
    assert.ok(cleaned >= 0 && removed > cleaned, "volume paths are cleaned up before the final delete");
    assert.ok((await env.podEventTexts("web")).includes("Killing: Stopping container app"));

    await env.runUntil(async () => !(await env.host.readdir(podsDir)).includes(uid), 10_000, "pod dir removed");
  });

  it("keeps a pod Terminating while a mount of it is busy, and removes it once the mount is released", async () => {
    const env = await startWithSecret();
    envs.push(env);
    const uid = await runningPod(env, "web");
    const hold = await env.host.holdMountBusy(`${podsDir}/${uid}/volumes/kubernetes.io~secret/token`);

    await env.client.pods.delete("default", "web");
    await env.runFor(5 * 60_000);
    const stuck = await env.pod("web");
    assert.notEqual(stuck, undefined, "the pod is still in the API");
    assert.notEqual(stuck?.metadata?.deletionTimestamp, undefined);
    assert.equal(stuck?.status?.containerStatuses?.[0]?.state?.terminated?.reason, "Completed");
    assert.ok(
      env.logLines().some((line) => line.includes("Pod is terminated, but some volumes have not been cleaned up")),
    );

    hold.release();
    // The unmount is retried with exponential backoff, capped at 2 min 2 s.
    await env.runUntil(async () => (await env.pod("web")) === undefined, 3 * 60_000, "web removed after release");
    assert.deepEqual(await env.mountPoints(), []);
  });

  it("finishes a deleted pod that never started (stuck in ContainerCreating) without waiting for the mount timeout", async () => {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    await env.createPod(podWithSecret("web"));
    await env.runFor(10_000);
    assert.equal(await env.phase("web"), "Pending");
    await env.client.pods.delete("default", "web");
    const tookMs = await env.runUntil(async () => (await env.pod("web")) === undefined, 60_000, "web removed");
    assert.ok(tookMs < 2_000, `removed after ${tookMs} ms`);
    const texts = await env.podEventTexts("web");
    assert.ok(
      !texts.some((text) => text.startsWith("FailedMount: Unable to attach or mount volumes")),
      texts.join("\n"),
    );
  });
});
