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

  it("reports FailedMount while a secret is missing and starts within one backoff step once it exists", async () => {
    const env = await start();
    await env.client.configMaps.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "default", name: "app-settings" },
      data: { "level.conf": "debug" },
    });
    await env.createPod(appPod("web"));
    await env.runFor(30_000);
    assert.equal(await env.phase("web"), "Pending");
    const failures = (await env.podEvents("web")).filter((event) => event.reason === "FailedMount");
    assert.equal(failures[0]?.message, 'MountVolume.SetUp failed for volume "creds" : secret "db-creds" not found');
    assert.equal(failures[0]?.type, "Warning");
    assert.deepEqual(failures[0]?.source, { component: "kubelet", host: "node-1" });

    await env.client.secrets.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: "default", name: "db-creds" },
      data: { password: Buffer.from("s3cret").toString("base64") },
    });
    // Failures at 30 s of retrying are 16 s apart (500 ms doubling), so the next attempt is at most that far.
    const tookMs = await env.runUntil(async () => (await env.phase("web")) === "Running", 60_000, "web running");
    assert.ok(tookMs <= 16_000 + 400, `running ${tookMs} ms after the secret was created`);
  });

  it("gives up waiting for an unattached volume after 2 min 3 s with Kubernetes' message", async () => {
    const env = await start();
    await createBoundSimDiskClaim(env, "data-claim", "disk-1");
    const startedAtMs = env.clock.now();
    await env.createPod({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: "default", name: "db" },
      spec: {
        containers: [
          { name: "db", image: "postgres:16", volumeMounts: [{ name: "data", mountPath: "/var/lib/postgresql" }] },
        ],
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-claim" } }],
      },
    });
    await env.runUntil(
      async () => (await env.podEvents("db")).some((event) => event.message?.startsWith("Unable to attach or mount")),
      5 * 60_000,
      "the wait to give up",
    );
    const failure = (await env.podEvents("db")).find((event) => event.message?.startsWith("Unable to attach or mount"));
    assert.equal(
      failure?.message,
      "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: timed out waiting for the condition",
    );
    assert.equal(failure?.lastTimestamp, "2026-01-01T00:02:03Z");
    assert.equal(env.clock.now() - startedAtMs >= 123_000, true);
    const pod = await env.pod("db");
    assert.equal(pod?.status?.phase, "Pending");
    assert.equal(pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason, "ContainerCreating");
  });
});

async function createBoundSimDiskClaim(env: KubeletTestEnv, claimName: string, diskId: string): Promise<void> {
  env.world.disks.createDisk(diskId, 64 << 20);
  const pvName = `pv-${diskId}`;
  const claim = await env.client.persistentVolumeClaims.create({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { namespace: "default", name: claimName },
    spec: { accessModes: ["ReadWriteOnce"], volumeName: pvName, resources: { requests: { storage: "1Gi" } } },
  });
  await env.client.persistentVolumes.create({
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: pvName },
    spec: {
      accessModes: ["ReadWriteOnce"],
      capacity: { storage: "1Gi" },
      claimRef: { namespace: "default", name: claimName, uid: claim.metadata?.uid ?? "" },
      flexVolume: { driver: "kvol.io/sim-disk", fsType: "ext4", options: { diskId } },
    },
  });
  await env.client.persistentVolumeClaims.mutate(
    "default",
    claimName,
    (draft) => {
      draft.status = { phase: "Bound" };
    },
    { subresource: "status" },
  );
}
