/**
 * End to end, the kubelet's own restart (spec §3.10, §8.4) in a whole cluster: the volumes of pods
 * that still exist stay mounted through it — nothing is unmounted and mounted again — and a pod
 * deleted while the kubelet was down is torn down once it is back, after which the attach/detach
 * controller detaches its disk.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../api/objects.ts";
import { simDiskPluginName } from "../volume/plugins/simdisk/sim-disk-source.ts";
import { clusterPerTest } from "./testing/clusters.ts";
import { isRunning, Milestones, nodeVolumes, podsIn, podVolumePath, readText } from "./testing/e2e.ts";
import { claimYaml, podUsingClaimYaml, podYaml, storageClassYaml } from "./testing/manifests.ts";

const secondMs = 1_000;
const minuteMs = 60 * secondMs;
const kubeletRoot = "/var/lib/kubelet";
const nfsServer = "10.0.0.200";

const storageClass = storageClassYaml();

const manifests = [
  storageClass,
  `
apiVersion: v1
kind: Secret
metadata: { name: token }
data: { token: czNjcjN0 }
`,
  claimYaml("disk-app"),
  claimYaml("doomed"),
  podUsingClaimYaml("disk-app", "disk-app"),
  podYaml("nfs-app", `nfs: { server: ${nfsServer}, path: /exports/data }`),
  podYaml("secret-app", "secret: { secretName: token }"),
  podUsingClaimYaml("doomed", "doomed"),
].join("---\n");

describe("end to end: kubelet restart", () => {
  const startCluster = clusterPerTest();

  it("keeps the volumes of running pods mounted and cleans up, then detaches, the pod deleted while it was down", async () => {
    const cluster = await startCluster({ seed: 30 });
    cluster.world.addNfsServer(nfsServer).addExport("/exports/data");
    await cluster.addNode("node-a", { zone: "zone-1" });
    await cluster.apply(manifests);
    await cluster.runUntil(async () => (await podsIn(cluster, "default")).filter(isRunning).length === 4, {
      timeoutMs: 2 * minuteMs,
      description: "four pods running",
    });
    const host = cluster.world.node("node-a");
    const pods = new Map((await podsIn(cluster, "default")).map((pod) => [pod.metadata?.name ?? "", pod]));
    const pvOf = async (claim: string) =>
      (await cluster.get("PersistentVolumeClaim", "default", claim)).spec?.volumeName ?? "";
    const diskPv = await pvOf("disk-app");
    const doomedPv = await pvOf("doomed");
    const doomedUniqueName = `${simDiskPluginName}/${doomedPv}`;
    const diskMount = podVolumePath(pods.get("disk-app") as Pod, simDiskPluginName, diskPv);
    const secretMount = podVolumePath(pods.get("secret-app") as Pod, "kubernetes.io/secret", "data");
    const keptMountPoints = [
      diskMount,
      `${kubeletRoot}/plugins/kvol.io/sim-disk/mounts/${diskPv}`,
      podVolumePath(pods.get("nfs-app") as Pod, "kubernetes.io/nfs", "data"),
      secretMount,
    ];
    const doomedMountPoints = [
      podVolumePath(pods.get("doomed") as Pod, simDiskPluginName, doomedPv),
      `${kubeletRoot}/plugins/kvol.io/sim-disk/mounts/${doomedPv}`,
    ];
    /** Mount point → mount id: an unmount and mount again would show a new id. */
    const mountIds = async () =>
      new Map((await host.mountInfo()).map((mount) => [mount.mountPoint, mount.id] as const));
    const idsBefore = await mountIds();
    for (const path of [...keptMountPoints, ...doomedMountPoints]) assert.ok(idsBefore.has(path), `${path} mounted`);
    const containerIds = new Map(
      [...pods].map(([name, pod]) => [name, pod.status?.containerStatuses?.[0]?.containerID] as const),
    );
    await host.writeFile(`${diskMount}/table.db`, "rows");

    await cluster.stopKubelet("node-a");
    await cluster.delete("Pod", "default", "doomed");
    await cluster.runFor(30 * secondMs);
    assert.notEqual(
      (await cluster.get("Pod", "default", "doomed")).metadata?.deletionTimestamp,
      undefined,
      "nobody finishes the deletion while the kubelet is down",
    );
    assert.ok((await nodeVolumes(cluster, "node-a")).attached.includes(doomedUniqueName), "nor detaches its disk");

    await cluster.startKubelet("node-a");
    const milestones = new Milestones(cluster, {
      doomedUnmounted: async () => {
        const ids = await mountIds();
        return doomedMountPoints.every((path) => !ids.has(path));
      },
      doomedGone: async () => (await cluster.tryGet("Pod", "default", "doomed")) === undefined,
      notInUse: async () => !(await nodeVolumes(cluster, "node-a")).inUse.includes(doomedUniqueName),
      detached: async () => !(await nodeVolumes(cluster, "node-a")).attached.includes(doomedUniqueName),
    });
    await milestones.runUntil("detached", 2 * minuteMs);
    await milestones.runFor(minuteMs);

    assert.ok(milestones.at("doomedUnmounted") <= milestones.at("notInUse"));
    assert.ok(milestones.at("notInUse") <= milestones.at("detached"), "detached only once the node stopped using it");
    assert.ok(milestones.has("doomedGone"), "the kubelet finished the deletion");
    assert.equal(
      cluster.world.disksAttachedTo("node-a").some(({ disk }) => disk.id === doomedPv),
      false,
      "the doomed pod's disk is detached from the machine",
    );
    assert.equal((await host.readdir(`${kubeletRoot}/pods`)).includes(pods.get("doomed")?.metadata?.uid ?? ""), false);

    const idsAfter = await mountIds();
    for (const path of keptMountPoints)
      assert.equal(idsAfter.get(path), idsBefore.get(path), `${path} never remounted`);
    for (const name of ["disk-app", "nfs-app", "secret-app"]) {
      const pod = await cluster.get("Pod", "default", name);
      assert.ok(isRunning(pod), name);
      assert.equal(pod.status?.containerStatuses?.[0]?.restartCount, 0, name);
      assert.equal(
        pod.status?.containerStatuses?.[0]?.containerID,
        containerIds.get(name),
        `${name} kept its container`,
      );
    }
    assert.equal(await readText(host, `${diskMount}/table.db`), "rows");
    assert.equal(await readText(host, `${secretMount}/token`), "s3cr3t");
    assert.deepEqual((await nodeVolumes(cluster, "node-a")).inUse, [`${simDiskPluginName}/${diskPv}`]);
  });

  it("a kubelet killed while its mount is in flight leaves that mount to the node and mounts nothing twice", async () => {
    const cluster = await startCluster({ seed: 31 });
    await cluster.addNode("node-a", { zone: "zone-1" });
    const host = cluster.world.node("node-a");
    // Every mount(8) takes 10 s: the kubelet is killed in the middle of formatting-and-mounting the
    // disk. The mount runs in its own systemd scope, so it completes on the node without its kubelet.
    host.setCommandLatency("mount", 10 * secondMs);
    await cluster.apply([storageClass, claimYaml("disk-app"), podUsingClaimYaml("disk-app", "disk-app")].join("---\n"));
    const attachedOnNode = () =>
      cluster.logs.records.some((record) => record.message.startsWith("Controller attach succeeded"));
    await cluster.runUntil(attachedOnNode, { timeoutMs: minuteMs, description: "the kubelet saw the attach" });
    await cluster.runFor(secondMs);
    const restartedAtMs = cluster.clock.now();
    await cluster.restartKubelet("node-a");
    await cluster.runUntil(async () => isRunning(await cluster.tryGet("Pod", "default", "disk-app")), {
      timeoutMs: 2 * minuteMs,
      description: "disk-app running",
    });

    const pod = await cluster.get("Pod", "default", "disk-app");
    const pv = (await cluster.get("PersistentVolumeClaim", "default", "disk-app")).spec?.volumeName ?? "";
    const mountPoints = (await host.mountInfo())
      .map((mount) => mount.mountPoint)
      .filter((path) => path.startsWith(kubeletRoot))
      .sort();
    assert.deepEqual(
      mountPoints,
      [podVolumePath(pod, simDiskPluginName, pv), `${kubeletRoot}/plugins/kvol.io/sim-disk/mounts/${pv}`].sort(),
      "each path mounted once: the killed kubelet did not go on to mount after its mount(8) returned",
    );
    const afterRestart = cluster.logs.records.filter((record) => record.timeMs >= restartedAtMs);
    assert.equal(
      afterRestart.filter((record) => record.message.startsWith("MountVolume.MountDevice succeeded")).length,
      1,
      "only the new kubelet reports the device mounted",
    );
  });
});
