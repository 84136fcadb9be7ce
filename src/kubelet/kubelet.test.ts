import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { KubeletTestEnv } from "./testing/kubelet-test-env.ts";

const podsDir = "/var/lib/kubelet/pods";

function appPod(name: string, extraVolumes: NonNullable<Pod["spec"]>["volumes"] = []): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name },
    spec: {
      containers: [
        {
          name: "app",
          image: "busybox:1.36",
          volumeMounts: [
            { name: "scratch", mountPath: "/scratch" },
            { name: "creds", mountPath: "/etc/creds", readOnly: true },
            { name: "settings", mountPath: "/etc/settings" },
            ...(extraVolumes ?? []).map((volume) => ({ name: volume.name, mountPath: `/mnt/${volume.name}` })),
          ],
        },
      ],
      volumes: [
        { name: "scratch", emptyDir: {} },
        { name: "creds", secret: { secretName: "db-creds" } },
        { name: "settings", configMap: { name: "app-settings" } },
        ...(extraVolumes ?? []),
      ],
    },
  };
}

async function createSecretAndConfigMap(env: KubeletTestEnv): Promise<void> {
  await env.client.secrets.create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { namespace: "default", name: "db-creds" },
    data: { password: Buffer.from("s3cret").toString("base64") },
  });
  await env.client.configMaps.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "default", name: "app-settings" },
    data: { "level.conf": "debug" },
  });
}

describe("Kubelet pod lifecycle", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  async function start(...args: Parameters<typeof KubeletTestEnv.start>): Promise<KubeletTestEnv> {
    const env = await KubeletTestEnv.start(...args);
    envs.push(env);
    return env;
  }

  it("mounts emptyDir, secret and configMap volumes, then runs the pod", async () => {
    const env = await start();
    await createSecretAndConfigMap(env);
    const created = await env.createPod(appPod("web"));
    const uid = created.metadata?.uid ?? "";

    await env.runFor(0);
    const pending = await env.pod("web");
    assert.equal(pending?.status?.phase, "Pending");
    assert.deepEqual(pending?.status?.containerStatuses?.[0]?.state, { waiting: { reason: "ContainerCreating" } });

    const tookMs = await env.runUntil(async () => (await env.phase("web")) === "Running", 10_000, "web running");
    assert.ok(tookMs < 2_000, `running after ${tookMs} ms`);
    const running = await env.pod("web");
    const conditions = Object.fromEntries((running?.status?.conditions ?? []).map((c) => [c.type, c.status]));
    assert.deepEqual(conditions, { Initialized: "True", ContainersReady: "True", Ready: "True" });
    const status = running?.status?.containerStatuses?.[0];
    assert.equal(status?.ready, true);
    assert.equal(status?.restartCount, 0);
    assert.ok(status?.state?.running?.startedAt);

    assert.equal(await env.readHostFile(`${podsDir}/${uid}/volumes/kubernetes.io~secret/creds/password`), "s3cret");
    assert.equal(
      await env.readHostFile(`${podsDir}/${uid}/volumes/kubernetes.io~configmap/settings/level.conf`),
      "debug",
    );
    const scratch = await env.host.stat(`${podsDir}/${uid}/volumes/kubernetes.io~empty-dir/scratch`);
    assert.equal(scratch.type, "directory");
    assert.deepEqual(await env.mountPoints(), [`${podsDir}/${uid}/volumes/kubernetes.io~secret/creds`]);
    assert.deepEqual(
      (await env.podEventTexts("web")).filter((text) => !text.startsWith("Pulled")),
      ["Created: Created container app", "Started: Started container app"],
    );
  });
});
