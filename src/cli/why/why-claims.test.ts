/**
 * `kvol why` on claims that do not bind, on a simulated cluster read over the API server: no
 * class and no default class, no matching PersistentVolume, a provisioner that fails.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clusterPerTest } from "../../sim/testing/clusters.ts";
import { whyReport } from "../why-command.ts";
import { withClusterApi } from "./testing/scenario-api.ts";
import { reportText } from "./why-report.ts";

const claims = `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: no-class }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: static }
spec: { accessModes: [ReadWriteOnce], storageClassName: "", resources: { requests: { storage: 5Gi } } }
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: broken }
provisioner: kvol.io/sim-disk
parameters: { speed: fast }
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: failing }
spec: { accessModes: [ReadWriteOnce], storageClassName: broken, resources: { requests: { storage: 1Gi } } }
`;

describe("kvol why on claims that do not bind", () => {
  const startCluster = clusterPerTest();

  it("says which of no class, no matching volume or a failing provisioner holds each claim", async () => {
    const cluster = await startCluster();
    await cluster.apply(claims);
    await cluster.runFor(30_000);
    const text = await withClusterApi(cluster, async (api) => {
      const texts: string[] = [];
      for (const name of ["no-class", "static", "failing"]) {
        const { report, nowMs } = await whyReport(api, "PersistentVolumeClaim", "default", name, cluster.clock.now());
        texts.push(reportText(report, nowMs));
      }
      return texts;
    });
    const [noClass = "", staticClaim = "", failing = ""] = text;
    assert.match(
      noClass,
      /^claim default\/no-class: Pending: it names no storage class and the cluster has no default StorageClass \(for 30s\)/,
    );
    assert.ok(noClass.includes("storageclass.kubernetes.io/is-default-class=true"), noClass);
    assert.match(
      staticClaim,
      /claim default\/static: Pending: no PersistentVolume matches it \(static binding: ReadWriteOnce, 5Gi\)/,
    );
    assert.ok(staticClaim.includes("Create a PersistentVolume with at least the requested size"), staticClaim);
    assert.match(
      failing,
      /claim default\/failing: Pending: provisioner kvol\.io\/sim-disk fails: .*invalid option "speed" for volume plugin kvol\.io\/sim-disk/,
    );
    assert.match(failing, /event ProvisioningFailed/);
  });
});
