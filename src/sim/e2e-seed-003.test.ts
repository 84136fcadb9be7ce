/**
 * Seed 003 end to end (spec §8.3): an s3fs-like CSI driver (fuse.csi.kvol.io) whose node plugin
 * restarts, killing the FUSE daemons that serve every pod mount on the node — "Transport endpoint
 * is not connected" — on a whole simulated cluster: external-provisioner, kubelet, liveness probes.
 *
 * - Kubernetes (driver without re-establishing, kubelet without repair): the probe keeps failing,
 *   the container is killed and cannot be created again on the dead mount, until the pod is deleted.
 * - The seed's fix (both defaults): the plugin serves its mounts again from API objects on start,
 *   and the liveness probe restarts the container, which then sees the re-established mount; with
 *   `mountPropagation: HostToContainer` the running container follows the new mount, no restart.
 * - kvol's kubelet repair alone: the kubelet notices the dead pod mount at its pod sync — the
 *   failed liveness probe's, or the periodic one — and publishes it again (NodePublishVolume
 *   repairs it), without deleting the pod; the container restarted by its probe comes back at once.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Pod } from "../api/objects.ts";
import { Cluster, type ClusterCsiDriver } from "../cmd/cluster.ts";
import { fuseDriverName } from "../csi/drivers/common/constants.ts";
import type { FuseDriver } from "../csi/drivers/fuse/fuse-driver.ts";
import { isHostError } from "../host/host.ts";
import type { LogRecord } from "../runtime/logger.ts";
import { csiPluginName } from "../volume/paths.ts";
import { isRunning, podEventMessages, podEvents, podVolumePath, waitingReason } from "./testing/e2e.ts";

const secondMs = 1_000;
const minuteMs = 60 * secondMs;
const nodeName = "node-a";
const mountPath = "/var/lib/www/html";
const podName = "csi-s3-test-nginx";
const containerName = podName;

/** Seed 003's pod (one volume), on a claim of the fuse driver. */
const manifests = `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: csi-s3 }
provisioner: ${fuseDriverName}
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: csi-s3-pvc, namespace: default }
spec:
  accessModes: [ReadWriteMany]
  storageClassName: csi-s3
  resources: { requests: { storage: 1Gi } }
`;

interface PodOptions {
  livenessProbe: boolean;
  /** The volume mount's propagation; the default (None) keeps the mount the container started with. */
  mountPropagation?: "HostToContainer";
}

function podManifest(options: PodOptions = { livenessProbe: true }): Pod {
  const livenessProbe = {
    failureThreshold: 3,
    initialDelaySeconds: 20,
    periodSeconds: 5,
    timeoutSeconds: 5,
    exec: { command: ["ls", mountPath] },
  };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: podName, namespace: "default" },
    spec: {
      containers: [
        {
          name: containerName,
          image: "nginx",
          ...(options.livenessProbe ? { livenessProbe } : {}),
          volumeMounts: [
            {
              mountPath,
              name: "webroot",
              ...(options.mountPropagation === undefined ? {} : { mountPropagation: options.mountPropagation }),
            },
          ],
        },
      ],
      volumes: [{ name: "webroot", persistentVolumeClaim: { claimName: "csi-s3-pvc", readOnly: false } }],
    },
  };
}

const deadMountProbeOutput = `Liveness probe failed: ls: cannot access '${mountPath}': Transport endpoint is not connected\n`;
const killingMessage = `Container ${containerName} failed liveness probe, will be restarted`;

/** The kubelet's log lines for pod mounts it found corrupted and published again. */
function repairLogs(cluster: Cluster): LogRecord[] {
  return cluster.logs.records.filter(
    (record) => record.message === "Pod volume mount is corrupted, publishing it again",
  );
}

interface Seed003Setup {
  reestablishOnStart: boolean;
  repairCorruptedCsiMounts: boolean;
}

describe("seed 003: a FUSE CSI node plugin restart leaves pods on dead mounts", () => {
  const clusters: Cluster[] = [];
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) await cluster.stop();
  });

  async function start(setup: Seed003Setup, podOptions: PodOptions = { livenessProbe: true }): Promise<Cluster> {
    const driver: ClusterCsiDriver = {
      name: fuseDriverName,
      options: { reestablishOnStart: setup.reestablishOnStart },
    };
    const cluster = await Cluster.start({ seed: 3, csiDrivers: [driver] });
    clusters.push(cluster);
    await cluster.addNode(nodeName, { repairCorruptedCsiMounts: setup.repairCorruptedCsiMounts });
    await cluster.apply(manifests);
    await cluster.client.pods.create(podManifest(podOptions));
    await cluster.runUntil(async () => isRunning(await pod(cluster)), {
      timeoutMs: 5 * minuteMs,
      description: "the pod Running",
    });
    // Past the initial delay: the probe has succeeded at least once.
    await cluster.runFor(30 * secondMs);
    assert.deepEqual(await podEventMessages(cluster, await pod(cluster), "Unhealthy"), []);
    return cluster;
  }

  async function pod(cluster: Cluster): Promise<Pod> {
    return cluster.get("Pod", "default", podName);
  }

  async function volumePath(cluster: Cluster, current: Pod): Promise<string> {
    const claim = await cluster.get("PersistentVolumeClaim", "default", "csi-s3-pvc");
    return `${podVolumePath(current, csiPluginName, claim.spec?.volumeName ?? "")}/mount`;
  }

  /** What stat says of the pod's volume path on the node: "ok" or the errno. */
  async function statOnNode(cluster: Cluster, path: string): Promise<string> {
    try {
      await cluster.world.node(nodeName).stat(path);
      return "ok";
    } catch (error) {
      if (isHostError(error)) return error.code;
      throw error;
    }
  }

  function restartCount(current: Pod): number {
    return current.status?.containerStatuses?.[0]?.restartCount ?? -1;
  }

  it("Kubernetes: the probe keeps failing, the container cannot come back, until the pod is deleted", async () => {
    const cluster = await start({ reestablishOnStart: false, repairCorruptedCsiMounts: false });
    const before = await pod(cluster);
    const path = await volumePath(cluster, before);
    assert.equal(await statOnNode(cluster, path), "ok");

    await cluster.restartCsiNodePlugin(nodeName, fuseDriverName);
    assert.equal(await statOnNode(cluster, path), "ENOTCONN", "the kernel mount stays, its daemon is gone");

    await cluster.runFor(5 * minuteMs);
    const stuck = await pod(cluster);
    // Three failures 5 s apart, then the kill; the runtime cannot create the container again on
    // the dead mount (spec §8.3 step 3), so it never runs again and restartCount stays where it was.
    assert.deepEqual(await podEventMessages(cluster, stuck, "Unhealthy"), [deadMountProbeOutput]);
    const unhealthy = await podEvents(cluster, stuck, "Unhealthy");
    assert.equal(unhealthy[0]?.count, 3);
    assert.deepEqual(await podEventMessages(cluster, stuck, "Killing"), [killingMessage]);
    const createFailure = `error while creating mount source path '${path}': mkdir ${path}: file exists`;
    assert.deepEqual(await podEventMessages(cluster, stuck, "Failed"), [`Error: ${createFailure}`]);
    const failures = (await podEvents(cluster, stuck, "Failed"))[0]?.count ?? 0;
    assert.ok(failures > 5, `the kubelet keeps trying to create the container (${failures} attempts)`);
    assert.equal(waitingReason(stuck), "CreateContainerError");
    assert.equal(stuck.status?.containerStatuses?.[0]?.state?.waiting?.message, createFailure);
    assert.equal(restartCount(stuck), restartCount(before));
    assert.equal(await statOnNode(cluster, path), "ENOTCONN", "nothing repaired the mount");

    // The way out in Kubernetes: delete the pod. NodeUnpublish cleans the dead target up; the
    // replacement (a new uid) is published afresh, the driver restarting the staging daemon.
    await cluster.delete("Pod", "default", podName);
    await cluster.runUntil(async () => (await cluster.tryGet("Pod", "default", podName)) === undefined, {
      timeoutMs: 5 * minuteMs,
      description: "the stuck pod deleted",
    });
    assert.equal(await statOnNode(cluster, path), "ENOENT", "the dead target was unmounted and removed");
    await cluster.client.pods.create(podManifest());
    await cluster.runUntil(async () => isRunning(await pod(cluster)), {
      timeoutMs: 5 * minuteMs,
      description: "the replacement pod Running",
    });
    await cluster.runFor(minuteMs);
    const replacement = await pod(cluster);
    assert.notEqual(replacement.metadata?.uid, before.metadata?.uid);
    assert.equal(await statOnNode(cluster, await volumePath(cluster, replacement)), "ok");
    const replacementProbeFailures = (await podEvents(cluster, replacement, "Unhealthy")).filter(
      (event) => event.involvedObject.uid === replacement.metadata?.uid,
    );
    assert.deepEqual(replacementProbeFailures, [], "the replacement's probe succeeds");
    assert.equal(restartCount(replacement), 0);
  });

  it("the seed's fix: the plugin re-establishes its mounts on start, a liveness restart lets the container see it", async () => {
    const cluster = await start({ reestablishOnStart: true, repairCorruptedCsiMounts: true });
    const before = await pod(cluster);
    const path = await volumePath(cluster, before);

    await cluster.restartCsiNodePlugin(nodeName, fuseDriverName);
    const driver = cluster.csiDrivers.nodePlugin(nodeName, fuseDriverName) as FuseDriver;
    assert.ok(driver.lastReestablishReport?.repaired.includes(path), JSON.stringify(driver.lastReestablishReport));
    assert.deepEqual(driver.lastReestablishReport?.failed, []);
    assert.equal(await statOnNode(cluster, path), "ok", "the node path is served again at once");

    // The running container still holds the mount it started with (private propagation): its probe
    // fails until the liveness restart, after which the new container sees the re-established mount.
    await cluster.runUntil(async () => restartCount(await pod(cluster)) === restartCount(before) + 1, {
      timeoutMs: 2 * minuteMs,
      description: "one liveness restart",
    });
    await cluster.runFor(5 * minuteMs);
    const recovered = await pod(cluster);
    assert.ok(isRunning(recovered));
    assert.equal(restartCount(recovered), restartCount(before) + 1, "exactly one restart");
    assert.deepEqual(await podEventMessages(cluster, recovered, "Unhealthy"), [deadMountProbeOutput]);
    assert.equal((await podEvents(cluster, recovered, "Unhealthy"))[0]?.count, 3);
    assert.deepEqual(await podEventMessages(cluster, recovered, "Killing"), [killingMessage]);
    assert.deepEqual(await podEventMessages(cluster, recovered, "Failed"), [], "the container was created at once");
    assert.equal(repairLogs(cluster).length, 0, "nothing was left for the kubelet to repair");
  });

  it("the seed's fix with HostToContainer propagation: the container follows the new mount, no restart", async () => {
    const cluster = await start(
      { reestablishOnStart: true, repairCorruptedCsiMounts: true },
      { livenessProbe: true, mountPropagation: "HostToContainer" },
    );
    const before = await pod(cluster);
    const path = await volumePath(cluster, before);

    await cluster.restartCsiNodePlugin(nodeName, fuseDriverName);
    assert.equal(await statOnNode(cluster, path), "ok");
    await cluster.runFor(5 * minuteMs);
    const after = await pod(cluster);
    assert.ok(isRunning(after));
    assert.equal(restartCount(after), restartCount(before), "the container was never restarted");
    assert.deepEqual(await podEventMessages(cluster, after, "Unhealthy"), [], "every probe succeeded");
    assert.deepEqual(await podEventMessages(cluster, after, "Killing"), []);
  });

  it("kvol's kubelet repair: a dead pod mount is published again at the next pod sync, without the pod's help", async () => {
    const cluster = await start({ reestablishOnStart: false, repairCorruptedCsiMounts: true });
    const before = await pod(cluster);
    const path = await volumePath(cluster, before);

    await cluster.restartCsiNodePlugin(nodeName, fuseDriverName);
    assert.equal(await statOnNode(cluster, path), "ENOTCONN");
    const restartedAtMs = cluster.clock.now();
    await cluster.runUntil(async () => (await statOnNode(cluster, path)) === "ok", {
      timeoutMs: 2 * minuteMs,
      description: "the kubelet republished the pod mount",
    });
    // The first pod sync after the restart notices it: the failed liveness probe's at the latest.
    assert.ok(cluster.clock.now() - restartedAtMs <= 20 * secondMs, `${cluster.clock.now() - restartedAtMs} ms`);
    assert.deepEqual(
      repairLogs(cluster).map((record) => record.fields.find(([key]) => key === "path")?.[1]),
      [path],
      "the kubelet found the dead mount and published it again",
    );

    await cluster.runFor(5 * minuteMs);
    const recovered = await pod(cluster);
    assert.ok(isRunning(recovered));
    assert.equal(recovered.metadata?.uid, before.metadata?.uid, "the same pod, never deleted");
    assert.equal(await statOnNode(cluster, path), "ok");
    // The container held the dead mount: its liveness probe restarted it once, and the sync that
    // restarted it waited for the republished mount, so the new container was created at once.
    assert.equal(restartCount(recovered), restartCount(before) + 1);
    assert.deepEqual(await podEventMessages(cluster, recovered, "Killing"), [killingMessage]);
    assert.deepEqual(await podEventMessages(cluster, recovered, "Failed"), []);
    assert.equal((await podEvents(cluster, recovered, "Unhealthy"))[0]?.count, 3);
  });

  it("kvol's kubelet repair without a probe: the periodic pod sync republishes the mount, nothing restarts", async () => {
    const cluster = await start(
      { reestablishOnStart: false, repairCorruptedCsiMounts: true },
      { livenessProbe: false },
    );
    const before = await pod(cluster);
    const path = await volumePath(cluster, before);

    await cluster.restartCsiNodePlugin(nodeName, fuseDriverName);
    const restartedAtMs = cluster.clock.now();
    await cluster.runUntil(async () => (await statOnNode(cluster, path)) === "ok", {
      timeoutMs: 3 * minuteMs,
      description: "the kubelet republished the pod mount",
    });
    const tookMs = cluster.clock.now() - restartedAtMs;
    // kubeletSyncFrequencyMs (1 min) plus the resync jitter, at most.
    assert.ok(tookMs <= 90 * secondMs, `republished ${tookMs} ms after the plugin restart`);
    assert.equal(repairLogs(cluster).length, 1);
    await cluster.runFor(5 * minuteMs);
    const after = await pod(cluster);
    assert.ok(isRunning(after));
    assert.equal(restartCount(after), restartCount(before), "nothing restarted the container");
    assert.equal(repairLogs(cluster).length, 1, "a working mount is left alone");
  });
});
