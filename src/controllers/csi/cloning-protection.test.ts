/**
 * The cloning-protection finalizer, in a simulated cluster with hostpath.csi.kvol.io: the source of
 * a clone cannot be deleted while the clone is Pending, and goes once it is not.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hostpathDriverName } from "../../csi/drivers/common/constants.ts";
import { clusterPerTest } from "../../sim/testing/clusters.ts";
import { claimYaml, storageClassYaml } from "../../sim/testing/manifests.ts";

const startCluster = clusterPerTest();
const settleMs = 30_000;

function cloneYaml(name: string, storage: string): string {
  return `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: ${name} }
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  resources: { requests: { storage: ${storage} } }
  dataSource: { kind: PersistentVolumeClaim, name: data }
`;
}

describe("cloning protection", () => {
  it("keeps a clone's source claim Terminating while the clone is Pending, and lets it go after", async () => {
    const cluster = await startCluster({ seed: 11, csiDrivers: [{ name: hostpathDriverName }] });
    await cluster.addNode("node-a");
    await cluster.apply(
      [storageClassYaml({ provisioner: hostpathDriverName, bindingMode: "Immediate" }), claimYaml("data")].join(
        "---\n",
      ),
    );
    await cluster.runFor(settleMs);
    // 2Ti is more than hostpath's largest volume: CreateVolume fails and the clone stays Pending.
    await cluster.apply([cloneYaml("copy", "1Gi"), cloneYaml("too-big", "2Ti")].join("---\n"));
    await cluster.runFor(settleMs);
    const claims = cluster.client.persistentVolumeClaims;
    assert.equal((await claims.get("default", "copy")).status?.phase, "Bound");
    assert.equal((await claims.get("default", "too-big")).status?.phase, "Pending");
    const source = await claims.get("default", "data");
    assert.ok(source.metadata?.finalizers?.includes("provisioner.storage.kubernetes.io/cloning-protection"));

    await claims.delete("default", "data");
    await cluster.runFor(5 * 60_000);
    const terminating = await claims.get("default", "data");
    assert.ok(terminating.metadata?.deletionTimestamp != null, "the source is being deleted");
    // No pod uses it, so pvc-protection is gone; the clone in progress holds it.
    assert.deepEqual(terminating.metadata?.finalizers, ["provisioner.storage.kubernetes.io/cloning-protection"]);

    await claims.delete("default", "too-big");
    await cluster.runFor(10 * 60_000);
    assert.deepEqual(
      (await claims.list({ namespace: "default" })).items.map((claim) => claim.metadata?.name),
      ["copy"],
    );
  });
});
