/**
 * End to end through CSI (disk.csi.kvol.io) with real kubelets: a bound claim in use is grown. The
 * resizer grows the disk, the kubelet grows the filesystem — online while the pod runs, or, on a
 * node that cannot resize a mounted filesystem, once the pod restarts — and the claim shows the new
 * capacity with no resize condition left; the pod's filesystem shows the new size.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../api/objects.ts";
import type { Cluster } from "../cmd/cluster.ts";
import { diskDriverName } from "../csi/drivers/common/constants.ts";
import { onlineResizeDenied } from "./faults/expansion-faults.ts";
import { clusterPerTest } from "./testing/clusters.ts";
import { isRunning, podVolumePath } from "./testing/e2e.ts";

const minuteMs = 60_000;
const gibBytes = 1024 ** 3;

const manifests = `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: disk }
provisioner: ${diskDriverName}
volumeBindingMode: Immediate
allowVolumeExpansion: true
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data }
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: disk
  resources: { requests: { storage: 1Gi } }
`;

function podYaml(name: string): string {
  return `
apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  containers:
    - name: app
      image: busybox:1.36
      volumeMounts: [{ name: data, mountPath: /data }]
  volumes:
    - name: data
      persistentVolumeClaim: { claimName: data }
`;
}

async function runningPod(cluster: Cluster, name: string): Promise<Pod> {
  await cluster.runUntil(async () => isRunning(await cluster.tryGet("Pod", "default", name)), {
    timeoutMs: 3 * minuteMs,
    description: `pod ${name} Running`,
  });
  return cluster.get("Pod", "default", name);
}

async function growClaim(cluster: Cluster, size: string): Promise<void> {
  await cluster.client.persistentVolumeClaims.mutate("default", "data", (draft) => {
    draft.spec = { ...draft.spec, resources: { requests: { storage: size } } };
  });
}

async function eventsOf(cluster: Cluster, kind: string, name: string, reason: string): Promise<string[]> {
  const events = await cluster.list("Event");
  return events
    .filter((event) => event.involvedObject.kind === kind && event.involvedObject.name === name)
    .filter((event) => event.reason === reason)
    .map((event) => `${event.type} ${event.message}`);
}

/** The size of the filesystem the pod sees at /data, in bytes. */
async function podFilesystemBytes(cluster: Cluster, pod: Pod, pvName: string): Promise<number> {
  const path = `${podVolumePath(pod, "kubernetes.io/csi", pvName)}/mount`;
  return (await cluster.world.node(pod.spec?.nodeName ?? "").statfs(path)).totalBytes;
}

describe("end to end: growing a claim in use", () => {
  const startCluster = clusterPerTest();

  it("grows the filesystem while the pod runs: the claim shows 2Gi, no condition left, FileSystemResizeSuccessful", async () => {
    const cluster = await startCluster({ seed: 17, csiDrivers: [{ name: diskDriverName }] });
    await cluster.addNode("node-a");
    await cluster.apply(manifests);
    await cluster.apply(podYaml("web"));
    const pod = await runningPod(cluster, "web");
    const pvName = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
    assert.ok((await podFilesystemBytes(cluster, pod, pvName)) <= gibBytes);

    await growClaim(cluster, "2Gi");
    // The kubelet notices at its next sync of the pod (every minute).
    await cluster.runUntil(
      async () => (await cluster.get("PersistentVolumeClaim", "default", "data")).status?.capacity?.storage === "2Gi",
      { timeoutMs: 3 * minuteMs, description: "the claim's capacity is 2Gi" },
    );
    const claim = await cluster.get("PersistentVolumeClaim", "default", "data");
    assert.equal(claim.status?.conditions, undefined, "FileSystemResizePending is gone");
    assert.equal(claim.status?.allocatedResourceStatuses, undefined);
    const success = `Normal MountVolume.NodeExpandVolume succeeded for volume "${pvName}" node-a`;
    assert.deepEqual(await eventsOf(cluster, "Pod", "web", "FileSystemResizeSuccessful"), [success]);
    assert.deepEqual(await eventsOf(cluster, "PersistentVolumeClaim", "data", "FileSystemResizeSuccessful"), [success]);
    assert.equal(await podFilesystemBytes(cluster, pod, pvName), 2 * gibBytes);
    assert.ok(isRunning(await cluster.get("Pod", "default", "web")), "the pod kept running");
  });

  it("on a node that cannot grow a mounted filesystem the claim waits until the pod restarts, then grows before the mount", async () => {
    const cluster = await startCluster({ seed: 17, csiDrivers: [{ name: diskDriverName }] });
    await cluster.addNode("node-a");
    await onlineResizeDenied.inject(cluster, { node: "node-a" });
    await cluster.apply(manifests);
    await cluster.apply(podYaml("web"));
    await runningPod(cluster, "web");
    const pvName = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";

    await growClaim(cluster, "2Gi");
    await cluster.runUntil(async () => (await eventsOf(cluster, "Pod", "web", "VolumeResizeFailed")).length > 0, {
      timeoutMs: 3 * minuteMs,
      description: "the online resize failed",
    });
    const [failure] = await eventsOf(cluster, "Pod", "web", "VolumeResizeFailed");
    assert.match(
      failure ?? "",
      new RegExp(
        `^Warning NodeExpandVolume\\.NodeExpandVolume failed for volume "${pvName}" : Expander\\.NodeExpand failed to expand the volume : rpc error: code = Internal desc = NodeExpandVolume: growing the filesystem on /dev/\\S+ failed: .*resize2fs: Permission denied to resize filesystem.*online resize needs CAP_SYS_RESOURCE.*restart the pod$`,
        "s",
      ),
    );
    let claim = await cluster.get("PersistentVolumeClaim", "default", "data");
    assert.equal(claim.status?.capacity?.storage, "1Gi");
    const types = (claim.status?.conditions ?? []).map((condition) => condition.type).sort();
    assert.deepEqual(types, ["FileSystemResizePending", "NodeResizeError"]);

    await cluster.delete("Pod", "default", "web");
    await cluster.runUntil(async () => (await cluster.tryGet("Pod", "default", "web")) === undefined, {
      timeoutMs: 3 * minuteMs,
      description: "pod web deleted",
    });
    await cluster.apply(podYaml("web2"));
    const pod = await runningPod(cluster, "web2");
    claim = await cluster.get("PersistentVolumeClaim", "default", "data");
    assert.equal(claim.status?.capacity?.storage, "2Gi");
    assert.equal(claim.status?.conditions, undefined);
    assert.deepEqual(await eventsOf(cluster, "Pod", "web2", "FileSystemResizeSuccessful"), [
      `Normal MountVolume.NodeExpandVolume succeeded for volume "${pvName}" node-a`,
    ]);
    assert.equal(await podFilesystemBytes(cluster, pod, pvName), 2 * gibBytes);
  });
});
