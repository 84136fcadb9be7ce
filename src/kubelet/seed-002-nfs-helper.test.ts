/**
 * Seed 002: a Deployment's pods use an NFS PersistentVolume on a node without nfs-utils. They stay
 * ContainerCreating with mount(8)'s "wrong fs type" through a transient systemd scope; once the
 * helper is installed and the pods are deleted, their replacements run.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { Cluster } from "../cmd/cluster.ts";

const manifests = `
apiVersion: v1
kind: Namespace
metadata: { name: ops-test }
---
apiVersion: v1
kind: PersistentVolume
metadata: { name: nfs211 }
spec:
  capacity: { storage: 10Gi }
  accessModes: [ReadWriteMany]
  persistentVolumeReclaimPolicy: Retain
  nfs: { server: 10.20.172.211, path: /nfs }
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: nfs-211, namespace: ops-test }
spec:
  accessModes: [ReadWriteMany]
  storageClassName: ""
  volumeName: nfs211
  resources: { requests: { storage: 10Gi } }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: node1-nfs-test, namespace: ops-test }
spec:
  replicas: 2
  selector: { matchLabels: { app: node1-nfs-test } }
  template:
    metadata: { labels: { app: node1-nfs-test } }
    spec:
      containers:
        - name: node1-nfs-test
          image: alpine
          command: [sleep, infinity]
          volumeMounts: [{ name: vol1, mountPath: /tmp }]
      volumes:
        - name: vol1
          persistentVolumeClaim: { claimName: nfs-211 }
`;

function mountFailureText(uid: string): RegExp {
  const target = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~nfs/nfs211`;
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^${escaped(
      'MountVolume.SetUp failed for volume "nfs211" : mount failed: exit status 32\n' +
        "Mounting command: systemd-run\n" +
        `Mounting arguments: --description=Kubernetes transient mount for ${target} --scope -- mount -t nfs 10.20.172.211:/nfs ${target}\n` +
        "Output: Running scope as unit run-",
    )}\\d+${escaped(
      ".scope.\n" +
        "mount: wrong fs type, bad option, bad superblock on 10.20.172.211:/nfs,\n" +
        "       missing codepage or helper program, or other error\n" +
        "       (for several filesystems (e.g. nfs, cifs) you might\n" +
        "       need a /sbin/mount.<type> helper program)\n\n" +
        "       In some cases useful info is found in syslog - try\n" +
        "       dmesg | tail or so.\n",
    )}$`,
  );
}

describe("Seed 002: NFS volume on a node without mount.nfs", () => {
  const clusters: Cluster[] = [];
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) await cluster.stop();
  });

  it("stays ContainerCreating with mount's exit status 32, and runs once the helper is installed and the pods are replaced", async () => {
    const cluster = await Cluster.start({ seed: 2 });
    clusters.push(cluster);
    cluster.world.addNfsServer("10.20.172.211").addExport("/nfs");
    await cluster.addNode("node1", { withoutCommands: ["mount.nfs", "mount.nfs4"] });
    await cluster.apply(manifests);
    // The claim binds on the PV controller's 15 s resync, then the kubelet waits 2 min 3 s for the mount.
    await cluster.runFor(3 * 60_000);

    const pods = await cluster.list("Pod", { namespace: "ops-test" });
    assert.equal(pods.length, 2);
    for (const pod of pods) {
      assert.equal(pod.spec?.nodeName, "node1");
      assert.equal(pod.status?.phase, "Pending");
      assert.equal(pod.status?.containerStatuses?.[0]?.state?.waiting?.reason, "ContainerCreating");
      const events = await cluster.events({ kind: "Pod", namespace: "ops-test", name: pod.metadata?.name ?? "" });
      const failed = events.filter((event) => event.reason === "FailedMount");
      assert.match(failed[0]?.message ?? "", mountFailureText(pod.metadata?.uid ?? ""));
      assert.deepEqual(failed[0]?.source, { component: "kubelet", host: "node1" });
      assert.ok(
        failed.some(
          (event) =>
            event.message ===
            "Unable to attach or mount volumes: unmounted volumes=[vol1], unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition",
        ),
        failed.map((event) => event.message).join("\n---\n"),
      );
    }

    cluster.world.node("node1").installCommand("mount.nfs");
    const oldNames = new Set(pods.map((pod) => pod.metadata?.name));
    for (const pod of pods) await cluster.delete("Pod", "ops-test", pod.metadata?.name ?? "");
    const runningReplacements = async (): Promise<Pod[]> =>
      (await cluster.list("Pod", { namespace: "ops-test" })).filter(
        (pod) => !oldNames.has(pod.metadata?.name) && pod.status?.phase === "Running",
      );
    const tookMs = await cluster.runUntil(async () => (await runningReplacements()).length === 2, {
      timeoutMs: 2 * 60_000,
      description: "two replacement pods running",
    });
    assert.ok(tookMs < 30_000, `replacements running after ${tookMs} ms`);
    const exportMounts = (await cluster.world.node("node1").mountInfo())
      .filter((mount) => mount.source === "10.20.172.211:/nfs")
      .map((mount) => mount.mountPoint)
      .sort();
    const expected = (await runningReplacements())
      .map((pod) => `/var/lib/kubelet/pods/${pod.metadata?.uid}/volumes/kubernetes.io~nfs/nfs211`)
      .sort();
    assert.deepEqual(exportMounts, expected, "each replacement has the export mounted, the old pods' mounts are gone");
  });
});
