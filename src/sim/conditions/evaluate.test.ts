import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { claimYaml, podUsingClaimYaml, storageClassYaml } from "../testing/manifests.ts";
import { evaluateCondition } from "./evaluate.ts";
import { parseCondition } from "./parse.ts";

const secondMs = 1_000;

function holds(cluster: Cluster, source: string): Promise<boolean> {
  return evaluateCondition(parseCondition(source), cluster);
}

function volumeAttachmentYaml(name: string, pv: string, node: string): string {
  return `
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: { name: ${name} }
spec:
  attacher: hostpath.csi.kvol.io
  nodeName: ${node}
  source: { persistentVolumeName: ${pv} }
`;
}

describe("condition evaluation", () => {
  const start = clusterPerTest();

  /** web-0 Running on node-a with claim data bound (stand-in kubelet). */
  async function clusterWithPod(): Promise<Cluster> {
    const cluster = await start({ seed: 4, standInKubelet: true });
    await cluster.addNode("node-a", { zone: "zone-1" });
    await cluster.apply(
      `${storageClassYaml({ bindingMode: "Immediate" })}---\n${claimYaml("data")}---\n${podUsingClaimYaml("web-0", "data")}`,
    );
    await cluster.runUntil(() => holds(cluster, "pod web-0 phase is Running and pvc data phase is Bound"), {
      timeoutMs: 60 * secondMs,
    });
    return cluster;
  }

  it("checks pods, claims, volumes and nodes as kubectl shows them", async () => {
    const cluster = await clusterWithPod();
    assert.equal(await holds(cluster, "pod web-0 node is node-a"), true);
    assert.equal(await holds(cluster, "pod web-0 node is node-b"), false);
    assert.equal(await holds(cluster, "pod web-0 status is Running"), true);
    assert.equal(await holds(cluster, "pod default/web-0 ready is True"), true);
    assert.equal(await holds(cluster, "pod other/web-0 is absent"), true, "another namespace has no web-0");
    assert.equal(await holds(cluster, "node node-a ready is True"), true);
    assert.equal(await holds(cluster, "node node-a schedulable is true"), true);
    const pv = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
    assert.equal(await holds(cluster, `pvc data volume is ${pv}`), true);
    assert.equal(await holds(cluster, `pv ${pv} claim is default/data`), true);
    assert.equal(await holds(cluster, `pv ${pv} accessmode is ReadWriteOnce`), true);
    assert.equal(await holds(cluster, `pv ${pv} accessmode is ReadWriteMany`), false);
  });

  it("combines checks with and, or and not; a missing object has no property", async () => {
    const cluster = await clusterWithPod();
    assert.equal(await holds(cluster, "pod web-1 phase is Running"), false);
    assert.equal(await holds(cluster, "not pod web-1 phase is Running"), true);
    assert.equal(await holds(cluster, "pod web-1 is present or pod web-0 is present"), true);
    assert.equal(await holds(cluster, "pod web-0 is present and pod web-1 is present"), false);
  });

  it("matches names with * against every object of the namespace", async () => {
    const cluster = await clusterWithPod();
    assert.equal(await holds(cluster, "pod web-* phase is Running"), true);
    assert.equal(await holds(cluster, "pod db-* is absent"), true);
    assert.equal(await holds(cluster, "pv pvc-* phase is Bound"), true);
  });

  it("binds a pattern to one object per condition: every clause that uses it talks of the same pod", async () => {
    const cluster = await clusterWithPod();
    // web-1 asks for a node label no node has, so it stays Pending and unscheduled.
    await cluster.apply(
      `apiVersion: v1\nkind: Pod\nmetadata: { name: web-1 }\nspec:\n  nodeSelector: { disk: ssd }\n  containers: [{ name: app, image: busybox }]\n`,
    );
    await cluster.runFor(2 * secondMs);
    assert.equal(await holds(cluster, "pod web-* phase is Running and pod web-* node is node-a"), true);
    assert.equal(await holds(cluster, "pod web-* phase is Pending"), true, "some web-* pod is Pending");
    assert.equal(
      await holds(cluster, "pod web-* phase is Pending and pod web-* node is node-a"),
      false,
      "no one pod is both Pending and on node-a, though one is Pending and another on node-a",
    );
    assert.equal(await holds(cluster, "pod web-* phase is Pending and not pod web-* node is node-a"), true);
    assert.equal(
      await holds(cluster, "not pod web-* phase is Succeeded"),
      true,
      "alone under not, a pattern still reads 'no web-* pod is Succeeded'",
    );
    assert.equal(await holds(cluster, "not pod web-* phase is Pending"), false);
    assert.equal(
      await holds(cluster, "pod web-* phase is Running and pvc data phase is Bound and pod db-* is absent"),
      true,
      "each distinct pattern is bound on its own",
    );
  });

  it("counts the VolumeAttachments of a volume, or of the volume a claim is bound to", async () => {
    const cluster = await clusterWithPod();
    const pv = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
    assert.equal(await holds(cluster, "volumeattachments of pvc data count is 0"), true);
    await cluster.apply(volumeAttachmentYaml("va-1", pv, "node-a"));
    await cluster.apply(volumeAttachmentYaml("va-2", "other-pv", "node-a"));
    assert.equal(await holds(cluster, `volumeattachments of pv ${pv} count is 1`), true);
    assert.equal(await holds(cluster, "volumeattachments of pvc data count is 1"), true);
    assert.equal(await holds(cluster, "volumeattachments of pvc missing count is 0"), true);
    assert.equal(await holds(cluster, "volumeattachment va-1 node is node-a"), true);
  });

  it("sees a node go Unknown when it stops posting status", async () => {
    const cluster = await clusterWithPod();
    cluster.stopHeartbeat("node-a");
    await cluster.runUntil(() => holds(cluster, "node node-a ready is Unknown"), { timeoutMs: 2 * 60 * secondMs });
    assert.equal(await holds(cluster, "node node-a ready is True"), false);
  });
});
