/**
 * The snapshotter secret of a VolumeSnapshotClass, in a simulated cluster with disk.csi.kvol.io:
 * recorded on the content, required for CreateSnapshot and DeleteSnapshot, and what a user sees
 * while it is missing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diskDriverName } from "../../csi/drivers/common/constants.ts";
import { clusterPerTest } from "../../sim/testing/clusters.ts";
import { claimYaml, storageClassYaml } from "../../sim/testing/manifests.ts";

const startCluster = clusterPerTest();
const settleMs = 30_000;

const classYaml = `
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotClass
metadata: { name: secured }
driver: ${diskDriverName}
deletionPolicy: Delete
parameters:
  csi.storage.k8s.io/snapshotter-secret-name: snap-creds-\${volumesnapshot.name}
  csi.storage.k8s.io/snapshotter-secret-namespace: \${volumesnapshot.namespace}
`;

const snapshotYaml = `
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata: { name: data-snap }
spec:
  volumeSnapshotClassName: secured
  source: { persistentVolumeClaimName: data }
`;

const secretYaml = `
apiVersion: v1
kind: Secret
metadata: { name: snap-creds-data-snap }
stringData: { token: s3cr3t }
`;

describe("the snapshotter secret", () => {
  it("is recorded on the content; without it no snapshot is cut, with it the snapshot is cut and later deleted", async () => {
    const cluster = await startCluster({ seed: 5, csiDrivers: [{ name: diskDriverName }] });
    await cluster.addNode("node-a");
    await cluster.apply(
      [storageClassYaml({ provisioner: diskDriverName, bindingMode: "Immediate" }), claimYaml("data"), classYaml].join(
        "---\n",
      ),
    );
    await cluster.runFor(settleMs);
    await cluster.apply(snapshotYaml);
    await cluster.runFor(settleMs);

    const snapshot = await cluster.client.resource("VolumeSnapshot").get("default", "data-snap");
    const contentName = `snapcontent-${snapshot.metadata?.uid}`;
    const content = await cluster.client.resource("VolumeSnapshotContent").get("", contentName);
    assert.deepEqual(content.metadata?.annotations, {
      "snapshot.storage.kubernetes.io/deletion-secret-name": "snap-creds-data-snap",
      "snapshot.storage.kubernetes.io/deletion-secret-namespace": "default",
    });
    assert.equal(
      content.status?.error?.message,
      `Failed to check and update snapshot content: failed to get input parameters to create snapshot for content ${contentName}: ` +
        `"cannot get credentials for snapshot content \\"${contentName}\\""`,
    );
    assert.notEqual(snapshot.status?.readyToUse, true);
    assert.equal(cluster.world.disks.listSnapshots().length, 0);

    await cluster.apply(secretYaml);
    await cluster.runFor(10 * 60_000);
    assert.equal(
      (await cluster.client.resource("VolumeSnapshot").get("default", "data-snap")).status?.readyToUse,
      true,
    );
    assert.equal(cluster.world.disks.listSnapshots().length, 1);

    // Deleting needs the secret too: without it the physical snapshot and the content stay.
    await cluster.client.secrets.delete("default", "snap-creds-data-snap");
    await cluster.client.resource("VolumeSnapshot").delete("default", "data-snap");
    await cluster.runFor(settleMs);
    assert.equal(cluster.world.disks.listSnapshots().length, 1);
    const deleteErrors = (await cluster.client.events.list()).items.filter(
      (event) => event.reason === "SnapshotDeleteError" && event.involvedObject.name === contentName,
    );
    assert.equal(deleteErrors[0]?.message, "Failed to get snapshot credentials");
    await cluster.apply(secretYaml);
    await cluster.runFor(10 * 60_000);
    assert.deepEqual(cluster.world.disks.listSnapshots(), []);
    assert.deepEqual((await cluster.client.resource("VolumeSnapshotContent").list()).items, []);
  });
});
