import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { fuseDriverName } from "../../csi/drivers/common/constants.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { evaluateCondition } from "./evaluate.ts";
import { parseCondition } from "./parse.ts";

const minuteMs = 60_000;

const manifests = `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: s3 }
provisioner: ${fuseDriverName}
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: bucket }
spec:
  accessModes: [ReadWriteMany]
  storageClassName: s3
  resources: { requests: { storage: 1Gi } }
---
apiVersion: v1
kind: Pod
metadata: { name: web }
spec:
  containers: [{ name: web, image: nginx, volumeMounts: [{ name: webroot, mountPath: /www }] }]
  volumes: [{ name: webroot, persistentVolumeClaim: { claimName: bucket } }]
`;

function holds(cluster: Cluster, source: string): Promise<boolean> {
  return evaluateCondition(parseCondition(source), cluster);
}

describe("mount health", () => {
  const start = clusterPerTest();

  it("is healthy while the FUSE daemon serves the mount, corrupted once it died, absent when the node is off", async () => {
    const cluster = await start({
      seed: 8,
      csiDrivers: [{ name: fuseDriverName, options: { reestablishOnStart: false } }],
    });
    await cluster.addNode("node-a", { repairCorruptedCsiMounts: false });
    await cluster.apply(manifests);
    const healthy = "mount of pod web volume webroot on node-a is healthy";
    await cluster.runUntil(() => holds(cluster, healthy), { timeoutMs: 2 * minuteMs, description: healthy });
    assert.equal(await holds(cluster, "mount of pod web volume other on node-a is absent"), true, "no such volume");
    assert.equal(await holds(cluster, "mount of pod web volume webroot is healthy"), true, "on the pod's own node");
    const runningAndHealthy = "pod w* phase is Running and mount of pod w* volume webroot is healthy";
    await cluster.runUntil(() => holds(cluster, runningAndHealthy), {
      timeoutMs: minuteMs,
      description: "one pod, Running and with a healthy mount",
    });

    await cluster.restartCsiNodePlugin("node-a", fuseDriverName);
    assert.equal(await holds(cluster, "mount of pod web volume webroot on node-a is corrupted"), true);
    assert.equal(await holds(cluster, healthy), false);
    assert.equal(
      await holds(cluster, "pod w* phase is Running and not mount of pod w* volume webroot is healthy"),
      true,
    );

    await cluster.powerOff("node-a");
    assert.equal(await holds(cluster, "mount of pod web volume webroot on node-a is absent"), true);
    await assert.rejects(
      holds(cluster, "mount of pod web volume webroot on node-z is absent"),
      /node node-z does not exist/,
    );
  });
});
