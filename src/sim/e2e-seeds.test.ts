/**
 * The seed incidents, end to end with real kubelets (spec §8): what the user saw, and that the
 * documented way out works.
 * - Seed 000: a StatefulSet pod deleted and recreated on the same node while its volume is still
 *   being torn down.
 * - Seed 004: an RBD RWO volume whose node went away: Multi-Attach, and the ways out (ReadWriteMany
 *   with RBD's own watcher check, fencing, the out-of-service taint).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../api/objects.ts";
import { DEFAULT_TIMERS } from "../api/timers.ts";
import type { Cluster } from "../cmd/cluster.ts";
import { watchersText } from "../host/sim/commands/rbd.ts";
import { rbdWatcherTimeoutDefaultMs } from "../host/sim/sim-constants.ts";
import { simDiskPluginName } from "../volume/plugins/simdisk/sim-disk-source.ts";
import { clusterPerTest } from "./testing/clusters.ts";
import {
  isRunning,
  Milestones,
  mountPointsUnder,
  nodeVolumes,
  podEventMessages,
  podsIn,
  podVolumePath,
  readText,
  waitingReason,
} from "./testing/e2e.ts";
import { storageClassYaml, webStatefulSetYaml } from "./testing/manifests.ts";

const secondMs = 1_000;
const minuteMs = 60 * secondMs;
const kubeletRoot = "/var/lib/kubelet";
const gibibyte = 2 ** 30;
const { podAttachAndMountTimeoutMs, podGcPeriodMs } = DEFAULT_TIMERS;
const outOfServiceTaint = { key: "node.kubernetes.io/out-of-service", value: "nodeshutdown", effect: "NoExecute" };
const rbdUniqueName = "kubernetes.io/rbd/sock_shop:user-pv";

/** Seed 004's manifests; the monitor is the simulated Ceph cluster's. */
const sockShopYaml = `
apiVersion: v1
kind: Namespace
metadata: { name: sock-shop }
---
apiVersion: v1
kind: Secret
metadata: { name: ceph-secret, namespace: sock-shop }
type: kubernetes.io/rbd
data: { key: QVFCZ2FWcGJBQUFBQUJBQXNXSU9SQ3JRZGdjZWV6Ni9kTDFDNlE9PQ== }
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: user-pv
  labels: { pv: user-pv }
spec:
  capacity: { storage: 1Gi }
  accessModes: [ReadWriteOnce]
  rbd:
    monitors: [10.0.255.1:6789]
    pool: sock_shop
    image: user-pv
    user: admin
    secretRef: { name: ceph-secret }
    fsType: ext4
    readOnly: false
  persistentVolumeReclaimPolicy: Recycle
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: user-pvc, namespace: sock-shop }
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  selector: { matchLabels: { pv: user-pv } }
  resources: { requests: { storage: 1Gi } }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: user-db, namespace: sock-shop }
spec:
  replicas: 1
  selector: { matchLabels: { name: user-db } }
  template:
    metadata: { labels: { name: user-db } }
    spec:
      containers:
        - name: user-db
          image: weaveworksdemos/user-db:0.3.0
          volumeMounts: [{ name: data-volume, mountPath: /data/db }]
      volumes:
        - name: data-volume
          persistentVolumeClaim: { claimName: user-pvc }
`;

/** What \`rbd status sock_shop/user-pv\` prints. */
function watchersOf(cluster: Cluster): string {
  const image = cluster.world.rbd.image("sock_shop", "user-pv");
  assert.ok(image, "the image exists");
  return watchersText(image);
}

const webYaml = `${storageClassYaml()}---\n${webStatefulSetYaml()}`;

describe("end to end: the seed incidents", () => {
  const startClusterWith = clusterPerTest();
  const startCluster = (seed: number) => startClusterWith({ seed });

  it("seed 000: web-0 recreated on its node while the old pod's disk is being unmounted runs with its data", async () => {
    const cluster = await startCluster(20);
    await cluster.addNode("node-a", { zone: "zone-1" });
    await cluster.apply(webYaml);
    const web0 = () => cluster.tryGet("Pod", "default", "web-0");
    await cluster.runUntil(async () => isRunning(await web0()), { timeoutMs: 2 * minuteMs, description: "web-0" });
    const oldPod = (await web0()) as Pod;
    const pv = (await cluster.get("PersistentVolumeClaim", "default", "www-web-0")).spec?.volumeName ?? "";
    const uniqueName = `${simDiskPluginName}/${pv}`;
    const host = cluster.world.node("node-a");
    const oldPath = podVolumePath(oldPod, simDiskPluginName, pv);
    const globalMount = `${kubeletRoot}/plugins/kvol.io/sim-disk/mounts/${pv}`;
    await host.writeFile(`${oldPath}/index.html`, "<h1>web-0</h1>");
    const mountIdOf = async (path: string) => (await host.mountInfo()).find((mount) => mount.mountPoint === path)?.id;
    const firstGlobalMountId = await mountIdOf(globalMount);

    // Every umount on the node takes 5 s (a busy filesystem flushing): the replacement arrives
    // while the kubelet is still unmounting the disk from its per-node mount.
    host.setCommandLatency("umount", 5 * secondMs);
    const replacement = async () => {
      const pod = await web0();
      return pod !== undefined && pod.metadata?.uid !== oldPod.metadata?.uid ? pod : undefined;
    };
    const volumeKeptEverywhere = async () => {
      const { attached, inUse } = await nodeVolumes(cluster, "node-a");
      return attached.includes(uniqueName) && inUse.includes(uniqueName);
    };
    const milestones = new Milestones(cluster, {
      oldPodUnmounted: async () => (await mountIdOf(oldPath)) === undefined,
      replacementBound: async () => (await replacement())?.spec?.nodeName === "node-a",
      // The first per-node mount is gone (the mount table may already hold the next one).
      deviceUnmounted: async () => (await mountIdOf(globalMount)) !== firstGlobalMountId,
      deviceMountedAgain: async () => ((await mountIdOf(globalMount)) ?? firstGlobalMountId) !== firstGlobalMountId,
      replacementRunning: async () => isRunning(await replacement()),
      volumeDropped: async () => !(await volumeKeptEverywhere()),
    });
    const deletedAtMs = cluster.clock.now();
    await cluster.delete("Pod", "default", "web-0");
    await milestones.runUntil("replacementRunning", 2 * minuteMs);

    // Spec §8.1: unmount the old pod, its deletion lets the StatefulSet create web-0 again, the
    // device unmount in flight finishes, then the new mount stages the device again.
    assert.ok(milestones.at("oldPodUnmounted") <= milestones.at("replacementBound"));
    assert.ok(milestones.at("replacementBound") < milestones.at("deviceUnmounted"), "the new pod came mid-teardown");
    assert.ok(milestones.at("deviceUnmounted") <= milestones.at("deviceMountedAgain"));
    assert.ok(milestones.at("deviceMountedAgain") <= milestones.at("replacementRunning"));
    assert.equal(milestones.has("volumeDropped"), false, "never detached, never dropped from volumesInUse");
    // The same sequence in the kubelet's log, as an operator reads it with journalctl.
    const volumeSteps = cluster.logs.records
      .filter((record) => record.timeMs >= deletedAtMs && record.component === "kubelet")
      .map((record) => record.message.split(" for volume")[0])
      .filter((step) => /^(UnmountVolume|UnmountDevice|MountVolume)\.?\w* succeeded$/.test(step ?? ""));
    assert.deepEqual(volumeSteps, [
      "UnmountVolume.TearDown succeeded",
      "UnmountDevice succeeded",
      "MountVolume.MountDevice succeeded",
    ]);

    const newPod = (await replacement()) as Pod;
    const newPath = podVolumePath(newPod, simDiskPluginName, pv);
    assert.equal(await readText(host, `${newPath}/index.html`), "<h1>web-0</h1>", "no byte lost");
    assert.deepEqual(await mountPointsUnder(host, kubeletRoot), [globalMount, newPath].sort());
    assert.deepEqual(await podEventMessages(cluster, newPod, "FailedMount"), []);
    assert.deepEqual(
      cluster.world.disksAttachedTo("node-a").map(({ disk }) => disk.id),
      [pv],
    );
    // The StatefulSet waited for the old object to go (the kubelet had marked it Succeeded long
    // before), then created web-0 once: no "recreating" warnings, no second delete.
    assert.deepEqual(
      (await cluster.events({ kind: "StatefulSet", name: "web" })).map((event) => [
        event.type,
        event.count,
        event.message,
      ]),
      [
        ["Normal", 1, "create Claim www-web-0 Pod web-0 in StatefulSet web success"],
        ["Normal", 2, "create Pod web-0 in StatefulSet web successful"],
      ],
    );
  });

  describe("seed 004: an RBD ReadWriteOnce volume whose node went away", () => {
    /** The cluster of the seed: user-db on node-a holding user-pv; node-b joins once it runs. */
    async function sockShop(seed: number): Promise<{ cluster: Cluster; oldPod: Pod }> {
      const cluster = await startCluster(seed);
      cluster.world.rbd.createImage("sock_shop", "user-pv", gibibyte);
      await cluster.addNode("node-a", { zone: "zone-1" });
      await cluster.apply(sockShopYaml);
      await cluster.runUntil(async () => (await podsIn(cluster, "sock-shop")).some(isRunning), {
        timeoutMs: 2 * minuteMs,
        description: "user-db running on node-a",
      });
      await cluster.addNode("node-b", { zone: "zone-1" });
      const [oldPod] = await podsIn(cluster, "sock-shop");
      assert.ok(oldPod);
      assert.match(watchersOf(cluster), /^Watchers:\n\twatcher=10\.0\.0\.10:0\/\d+ client\.\d+ cookie=1\n$/);
      assert.deepEqual(await nodeVolumes(cluster, "node-a"), { attached: [rbdUniqueName], inUse: [rbdUniqueName] });
      return { cluster, oldPod };
    }

    /** Runs until the old pod is evicted and its replacement is stuck; returns the replacement. */
    async function replacementStuckOnMultiAttach(cluster: Cluster, oldPod: Pod): Promise<Pod> {
      const replacement = async () =>
        (await podsIn(cluster, "sock-shop")).find((pod) => pod.metadata?.uid !== oldPod.metadata?.uid);
      await cluster.runUntil(async () => (await replacement())?.spec?.nodeName === "node-b", {
        timeoutMs: 7 * minuteMs,
        description: "replacement scheduled to node-b",
      });
      await cluster.runFor(podAttachAndMountTimeoutMs + secondMs);
      const pod = (await replacement()) as Pod;
      assert.equal(waitingReason(pod), "ContainerCreating");
      assert.deepEqual(await podEventMessages(cluster, pod, "FailedAttachVolume"), [
        `Multi-Attach error for volume "user-pv" Volume is already used by pod(s) ${oldPod.metadata?.name}`,
      ]);
      assert.deepEqual(await podEventMessages(cluster, pod, "FailedMount"), [
        "Unable to attach or mount volumes: unmounted volumes=[data-volume], unattached volumes=[data-volume], failed to process volumes=[]: timed out waiting for the condition",
      ]);
      return pod;
    }

    /** `kubectl edit pv user-pv` to ReadWriteMany, then `kubectl delete pod` of the stuck replacement. */
    async function switchToReadWriteMany(cluster: Cluster, stuck: Pod): Promise<void> {
      await cluster.client.persistentVolumes.mutate("", "user-pv", (draft) => {
        if (draft.spec) draft.spec.accessModes = ["ReadWriteMany"];
      });
      await cluster.delete("Pod", "sock-shop", stuck.metadata?.name ?? "");
    }

    async function runningOnNodeB(cluster: Cluster, timeoutMs: number): Promise<Pod> {
      const onNodeB = async () =>
        (await podsIn(cluster, "sock-shop")).find((pod) => pod.spec?.nodeName === "node-b" && isRunning(pod));
      await cluster.runUntil(async () => (await onNodeB()) !== undefined, {
        timeoutMs,
        description: "user-db running on node-b",
      });
      return (await onNodeB()) as Pod;
    }

    it("node-a powered off: Multi-Attach; with the PV ReadWriteMany the replacement maps the image, whose dead watcher expired", async () => {
      const { cluster, oldPod } = await sockShop(40);
      await cluster.powerOff("node-a");
      const stuck = await replacementStuckOnMultiAttach(cluster, oldPod);
      assert.equal(watchersOf(cluster), "Watchers: none\n", "node-a's watch expired 30 s after it lost power");
      await switchToReadWriteMany(cluster, stuck);
      const pod = await runningOnNodeB(cluster, minuteMs);
      assert.deepEqual(await podEventMessages(cluster, pod, "SuccessfulAttachVolume"), [
        'AttachVolume.Attach succeeded for volume "user-pv" ',
      ]);
      assert.match(watchersOf(cluster), /^Watchers:\n\twatcher=10\.0\.0\.11:0\/\d+ client\.\d+ cookie=2\n$/);
      assert.notEqual(
        (await cluster.get("Pod", "sock-shop", oldPod.metadata?.name ?? "")).metadata?.deletionTimestamp,
        undefined,
        "the old pod is still Terminating on the dead node",
      );
    });

    for (const ending of ["fenced", "powered off"] as const) {
      it(`node-a's kubelet dies with the image mapped: ReadWriteMany gets the attach, but rbd refuses to map until node-a is ${ending}`, async () => {
        const { cluster, oldPod } = await sockShop(41);
        // The machine keeps running with the image mapped (its Ceph client still watches it);
        // only the kubelet is gone, so the control plane sees the node as unreachable.
        await cluster.stopKubelet("node-a");
        const stuck = await replacementStuckOnMultiAttach(cluster, oldPod);
        await switchToReadWriteMany(cluster, stuck);
        const retry = async () =>
          (await podsIn(cluster, "sock-shop")).find((pod) => pod.metadata?.uid !== oldPod.metadata?.uid);
        const stillBeingUsed =
          'MountVolume.WaitForAttach failed for volume "user-pv" : rbd image sock_shop/user-pv is still being used';
        await cluster.runUntil(
          async () => {
            const pod = await retry();
            return pod !== undefined && (await podEventMessages(cluster, pod, "FailedMount")).includes(stillBeingUsed);
          },
          { timeoutMs: 2 * minuteMs, description: "rbd map refused on node-b" },
        );
        const retried = (await retry()) as Pod;
        assert.equal(waitingReason(retried), "ContainerCreating");
        assert.deepEqual(await podEventMessages(cluster, retried, "SuccessfulAttachVolume"), [
          'AttachVolume.Attach succeeded for volume "user-pv" ',
        ]);
        assert.match(watchersOf(cluster), /watcher=10\.0\.0\.10:/, "node-a still watches the image");

        const resolvedAtMs = cluster.clock.now();
        if (ending === "fenced") {
          cluster.world.fenceNode("node-a");
          assert.equal(watchersOf(cluster), "Watchers: none\n", "fencing drops node-a's watch at once");
        } else {
          await cluster.powerOff("node-a");
        }
        const pod = await runningOnNodeB(cluster, 5 * minuteMs);
        assert.equal(pod.metadata?.uid, retried.metadata?.uid, "the same pod runs once its retry maps the image");
        if (ending === "powered off") {
          const tookMs = cluster.clock.now() - resolvedAtMs;
          assert.ok(
            tookMs >= rbdWatcherTimeoutDefaultMs,
            `ran ${tookMs} ms after node-a went down: its watch had to expire first`,
          );
        }
        assert.match(watchersOf(cluster), /^Watchers:\n\twatcher=10\.0\.0\.11:/);
      });
    }

    it("node-a powered off: the out-of-service taint gets the old pod deleted, the volume detached and attached to node-b", async () => {
      const { cluster, oldPod } = await sockShop(42);
      await cluster.powerOff("node-a");
      await replacementStuckOnMultiAttach(cluster, oldPod);
      const taintedAtMs = cluster.clock.now();
      await cluster.client.nodes.mutate("", "node-a", (draft) => {
        draft.spec = { ...draft.spec, taints: [...(draft.spec?.taints ?? []), outOfServiceTaint] };
      });
      await cluster.runUntil(
        async () => (await cluster.tryGet("Pod", "sock-shop", oldPod.metadata?.name ?? "")) === undefined,
        { timeoutMs: minuteMs, description: "old pod deleted" },
      );
      assert.ok(cluster.clock.now() - taintedAtMs <= podGcPeriodMs);
      await cluster.runUntil(async () => !(await nodeVolumes(cluster, "node-a")).attached.includes(rbdUniqueName), {
        timeoutMs: secondMs,
        description: "user-pv gone from node-a's volumesAttached",
      });
      const pod = await runningOnNodeB(cluster, 3 * minuteMs);
      assert.deepEqual(await podEventMessages(cluster, pod, "SuccessfulAttachVolume"), [
        'AttachVolume.Attach succeeded for volume "user-pv" ',
      ]);
      assert.equal((await cluster.get("PersistentVolume", "", "user-pv")).spec?.accessModes?.[0], "ReadWriteOnce");
    });
  });
});
