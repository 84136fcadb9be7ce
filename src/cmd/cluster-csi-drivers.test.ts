import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { hostpathDriverName, mockDriverName } from "../csi/drivers/common/constants.ts";
import { isRunning } from "../sim/testing/e2e.ts";
import { Cluster, type ClusterCsiDriver } from "./cluster.ts";

const minuteMs = 60_000;

function claimAndPod(driverName: string): string {
  return `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: csi }
provisioner: ${driverName}
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data, namespace: default }
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: csi
  resources: { requests: { storage: 1Gi } }
---
apiVersion: v1
kind: Pod
metadata: { name: web, namespace: default }
spec:
  containers:
  - name: web
    image: nginx
    volumeMounts: [{ name: data, mountPath: /data }]
  volumes:
  - name: data
    persistentVolumeClaim: { claimName: data }
`;
}

describe("cluster CSI drivers", () => {
  const clusters: Cluster[] = [];
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) await cluster.stop();
  });

  async function start(drivers: ClusterCsiDriver[]): Promise<Cluster> {
    const cluster = await Cluster.start({ seed: 11, csiDrivers: drivers });
    clusters.push(cluster);
    return cluster;
  }

  async function runPod(cluster: Cluster, driverName: string): Promise<void> {
    await cluster.apply(claimAndPod(driverName));
    await cluster.runUntil(async () => isRunning(await cluster.get("Pod", "default", "web")), {
      timeoutMs: 5 * minuteMs,
      description: "the pod Running",
    });
  }

  it("provisions, registers on the node and mounts a hostpath volume", async () => {
    const cluster = await start([{ name: hostpathDriverName }]);
    assert.equal((await cluster.get("CSIDriver", "", hostpathDriverName)).spec?.attachRequired, false);
    await cluster.addNode("node-a");
    await runPod(cluster, hostpathDriverName);

    const csiNode = await cluster.get("CSINode", "", "node-a");
    assert.deepEqual(
      csiNode.spec?.drivers.map((driver) => [driver.name, driver.nodeID]),
      [[hostpathDriverName, "node-a"]],
    );
    const claim = await cluster.get("PersistentVolumeClaim", "default", "data");
    const volume = await cluster.get("PersistentVolume", "", claim.spec?.volumeName ?? "");
    assert.equal(volume.spec?.csi?.driver, hostpathDriverName);
    assert.deepEqual(await cluster.list("VolumeAttachment"), [], "hostpath volumes are not attached");
  });

  it("attaches through the external-attacher when the controller publishes volumes", async () => {
    const cluster = await start([{ name: mockDriverName }]);
    assert.equal((await cluster.get("CSIDriver", "", mockDriverName)).spec?.attachRequired, true);
    await cluster.addNode("node-a");
    await runPod(cluster, mockDriverName);
    const attachments = await cluster.list("VolumeAttachment");
    assert.equal(attachments.length, 1);
    assert.equal(attachments[0]?.status?.attached, true);
    assert.equal(attachments[0]?.spec.attacher, mockDriverName);
  });

  it("a mock volume used on node-a is attached and published on node-b once its pod moves there", async () => {
    const cluster = await start([{ name: mockDriverName }]);
    await cluster.addNode("node-a");
    await cluster.addNode("node-b");
    await cluster.apply(
      claimAndPod(mockDriverName).replace(
        "spec:\n  containers:",
        "spec:\n  nodeSelector: { kubernetes.io/hostname: node-a }\n  containers:",
      ),
    );
    await cluster.runUntil(async () => isRunning(await cluster.get("Pod", "default", "web")), {
      timeoutMs: 5 * minuteMs,
      description: "the pod Running on node-a",
    });
    await cluster.delete("Pod", "default", "web");
    await cluster.runUntil(async () => (await cluster.list("VolumeAttachment")).length === 0, {
      timeoutMs: 5 * minuteMs,
      description: "detached from node-a",
    });
    await cluster.apply(`
apiVersion: v1
kind: Pod
metadata: { name: web-b, namespace: default }
spec:
  nodeSelector: { kubernetes.io/hostname: node-b }
  containers: [{ name: web, image: nginx, volumeMounts: [{ name: data, mountPath: /data }] }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
`);
    await cluster.runUntil(async () => isRunning(await cluster.get("Pod", "default", "web-b")), {
      timeoutMs: 5 * minuteMs,
      description: "the pod Running on node-b",
    });
    assert.deepEqual(
      (await cluster.list("VolumeAttachment")).map((attachment) => attachment.spec.nodeName),
      ["node-b"],
    );
  });

  it("publishes hostpath capacity per node and schedules a WaitForFirstConsumer claim away from a node without any", async () => {
    const cluster = await start([{ name: hostpathDriverName }]);
    assert.equal((await cluster.get("CSIDriver", "", hostpathDriverName)).spec?.storageCapacity, true);
    await cluster.addNode("node-a"); // the controller's node: volumes live there
    await cluster.addNode("node-b");
    await cluster.apply(claimAndPod(hostpathDriverName));
    const capacityOf = async (node: string) =>
      (await cluster.list("CSIStorageCapacity")).find(
        (capacity) => capacity.nodeTopology?.matchLabels?.["topology.hostpath.csi.kvol.io/node"] === node,
      );
    await cluster.runUntil(async () => (await capacityOf("node-b")) !== undefined, {
      timeoutMs: 5 * minuteMs,
      description: "capacity published for node-b",
    });
    const nodeB = await capacityOf("node-b");
    assert.equal(nodeB?.capacity, "0");
    assert.equal(nodeB?.storageClassName, "csi");
    assert.match(nodeB?.metadata?.name ?? "", /^csisc-/);
    assert.equal(nodeB?.metadata?.labels?.["csi.storage.k8s.io/drivername"], hostpathDriverName);
    assert.equal(nodeB?.metadata?.labels?.["csi.storage.k8s.io/managed-by"], "external-provisioner");
    await cluster.runUntil(async () => isRunning(await cluster.get("Pod", "default", "web")), {
      timeoutMs: 5 * minuteMs,
      description: "the pod Running",
    });
    assert.equal((await cluster.get("Pod", "default", "web")).spec?.nodeName, "node-a");
    // The simulated root disk is 100Gi; the new 1Gi volume is set aside from it.
    await cluster.runUntil(async () => (await capacityOf("node-a"))?.capacity === "99Gi", {
      timeoutMs: 2 * minuteMs,
      description: "node-a's capacity refreshed to 99Gi after provisioning",
    });
    await cluster.delete("Pod", "default", "web");
    await cluster.delete("PersistentVolumeClaim", "default", "data");
    await cluster.runUntil(async () => (await capacityOf("node-a"))?.capacity !== "99Gi", {
      timeoutMs: 5 * minuteMs,
      description: "node-a's capacity back once the volume is deleted",
    });
  });

  it("creates <pod>-<volume> for a generic ephemeral volume, owned by the pod, and collects it with the pod", async () => {
    const cluster = await start([{ name: hostpathDriverName }]);
    await cluster.addNode("node-a");
    await cluster.apply(`
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: csi }
provisioner: ${hostpathDriverName}
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: Pod
metadata: { name: web, namespace: default }
spec:
  containers: [{ name: web, image: nginx, volumeMounts: [{ name: scratch, mountPath: /scratch }] }]
  volumes:
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        metadata: { labels: { app: web } }
        spec: { accessModes: [ReadWriteOnce], storageClassName: csi, resources: { requests: { storage: 1Gi } } }
`);
    await cluster.runUntil(async () => isRunning(await cluster.get("Pod", "default", "web")), {
      timeoutMs: 5 * minuteMs,
      description: "the pod Running",
    });
    const claim = await cluster.get("PersistentVolumeClaim", "default", "web-scratch");
    const pod = await cluster.get("Pod", "default", "web");
    assert.equal(claim.metadata?.labels?.app, "web");
    assert.deepEqual(
      claim.metadata?.ownerReferences?.map((owner) => [owner.kind, owner.name, owner.uid, owner.controller]),
      [["Pod", "web", pod.metadata?.uid, true]],
    );
    assert.equal(claim.status?.phase, "Bound");
    await cluster.delete("Pod", "default", "web");
    await cluster.runUntil(
      async () => !(await cluster.list("PersistentVolumeClaim")).some((item) => item.metadata?.name === "web-scratch"),
      { timeoutMs: 5 * minuteMs, description: "the claim deleted with its pod" },
    );
  });

  it("names what exists when asked to restart a node plugin that does not", async () => {
    const cluster = await start([{ name: hostpathDriverName }]);
    await cluster.addNode("node-a");
    await assert.rejects(cluster.restartCsiNodePlugin("node-b", hostpathDriverName), {
      message: `no node plugin of CSI driver ${hostpathDriverName} runs on node node-b (node plugins: node-a/${hostpathDriverName})`,
    });
  });

  it("refuses a driver listed twice", async () => {
    await assert.rejects(Cluster.start({ csiDrivers: [{ name: mockDriverName }, { name: mockDriverName }] }), {
      message: `csiDrivers: driver ${mockDriverName} is listed more than once`,
    });
  });
});
