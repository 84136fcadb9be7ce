/**
 * End to end, with a real kubelet on every node: a provisioned sim-disk volume attached, mounted,
 * used, moved between nodes and force-detached from a dead node, as a user sees it — pod phases,
 * events word for word, node status, mounts and bytes on the nodes, and timings in virtual time.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Pod } from "../api/objects.ts";
import { simDiskPluginName } from "../volume/plugins/simdisk/sim-disk-source.ts";
import { Cluster } from "./cluster.ts";
import {
  isRunning,
  Milestones,
  mountPointsUnder,
  nodeVolumes,
  podEventMessages,
  podEvents,
  podVolumePath,
  readText,
} from "./testing/e2e.ts";

const secondMs = 1_000;
const minuteMs = 60 * secondMs;
const kubeletRoot = "/var/lib/kubelet";

function storageClassYaml(bindingMode: "Immediate" | "WaitForFirstConsumer"): string {
  return `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: standard }
provisioner: kvol.io/sim-disk
volumeBindingMode: ${bindingMode}
`;
}

const webStatefulSetYaml = `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: web }
spec:
  replicas: 1
  serviceName: nginx
  selector: { matchLabels: { app: nginx } }
  template:
    metadata: { labels: { app: nginx } }
    spec:
      containers:
        - name: nginx
          image: nginx:1.25
          volumeMounts: [{ name: www, mountPath: /usr/share/nginx/html }]
  volumeClaimTemplates:
    - metadata: { name: www }
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: standard
        resources: { requests: { storage: 1Gi } }
`;

describe("end to end: sim-disk volumes through attach, mount and detach", () => {
  const clusters: Cluster[] = [];
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) await cluster.stop();
  });

  async function startCluster(seed: number): Promise<Cluster> {
    const cluster = await Cluster.start({ seed });
    clusters.push(cluster);
    return cluster;
  }

  for (const bindingMode of ["Immediate", "WaitForFirstConsumer"] as const) {
    it(`a StatefulSet on a ${bindingMode} class gets a provisioned disk, runs, and keeps its bytes across pod recreation`, async () => {
      const cluster = await startCluster(11);
      await cluster.addNode("node-a", { zone: "zone-1" });
      await cluster.apply(`${storageClassYaml(bindingMode)}---\n${webStatefulSetYaml}`);
      const web0 = () => cluster.tryGet("Pod", "default", "web-0");
      const pvName = async () => (await cluster.tryGet("PersistentVolumeClaim", "default", "www-web-0"))?.spec?.volumeName;
      const uniqueName = async () => `${simDiskPluginName}/${await pvName()}`;
      const milestones = new Milestones(cluster, {
        attached: async () => (await nodeVolumes(cluster, "node-a")).attached.includes(await uniqueName()),
        inUse: async () => (await nodeVolumes(cluster, "node-a")).inUse.includes(await uniqueName()),
        running: async () => isRunning(await web0()),
      });
      await milestones.runUntil("running", 2 * minuteMs);

      const claim = await cluster.get("PersistentVolumeClaim", "default", "www-web-0");
      const pv = claim.spec?.volumeName ?? "";
      assert.equal(claim.status?.phase, "Bound");
      assert.equal(pv, `pvc-${claim.metadata?.uid}`);
      assert.deepEqual(
        (await cluster.events({ kind: "PersistentVolumeClaim", name: "www-web-0", reason: "ProvisioningSucceeded" })).map(
          (event) => event.message,
        ),
        [`Successfully provisioned volume ${pv} using kvol.io/sim-disk`],
      );
      const pod = (await web0()) as Pod;
      const attachEvents = await podEvents(cluster, pod, "SuccessfulAttachVolume");
      assert.deepEqual(
        attachEvents.map((event) => [event.type, event.source?.component, event.message]),
        [["Normal", "attachdetach-controller", `AttachVolume.Attach succeeded for volume "${pv}" `]],
      );
      assert.ok(
        milestones.at("attached") < milestones.at("inUse") && milestones.at("inUse") <= milestones.at("running"),
        "the controller reports the attach before the kubelet reports the volume in use, and mounts only then",
      );
      const host = cluster.world.node("node-a");
      const podPath = podVolumePath(pod, simDiskPluginName, pv);
      const globalMount = `${kubeletRoot}/plugins/kvol.io/sim-disk/mounts/${pv}`;
      assert.deepEqual(await mountPointsUnder(host, kubeletRoot), [globalMount, podPath].sort());
      const podMount = (await host.mountInfo()).find((mount) => mount.mountPoint === podPath);
      assert.equal(podMount?.fsType, "ext4");

      await host.writeFile(`${podPath}/index.html`, "<h1>hello from web-0</h1>");
      await cluster.delete("Pod", "default", "web-0");
      const replacement = async () => {
        const current = await web0();
        return current?.metadata?.uid !== pod.metadata?.uid && isRunning(current) ? current : undefined;
      };
      await cluster.runUntil(async () => (await replacement()) !== undefined, {
        timeoutMs: 2 * minuteMs,
        description: "web-0 recreated and running",
      });
      const recreated = (await replacement()) as Pod;
      const newPath = podVolumePath(recreated, simDiskPluginName, pv);
      assert.equal(await readText(host, `${newPath}/index.html`), "<h1>hello from web-0</h1>", "no byte lost");
      assert.deepEqual(await mountPointsUnder(host, kubeletRoot), [globalMount, newPath].sort());
      assert.deepEqual(await podEventMessages(cluster, recreated, "FailedMount"), []);
    });
  }
});
