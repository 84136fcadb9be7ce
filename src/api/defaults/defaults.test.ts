import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestApi } from "../client/testing/test-api.ts";
import type { Pod } from "../objects.ts";
import { applyDefaults } from "./defaults.ts";

describe("API defaulting", () => {
  it("gives a StorageClass Kubernetes' reclaim policy and binding mode when they are omitted", async () => {
    const { client } = newTestApi();
    const created = await client.storageClasses.create({ metadata: { name: "fast" }, provisioner: "kvol.io/sim-disk" });
    assert.equal(created.reclaimPolicy, "Delete");
    assert.equal(created.volumeBindingMode, "Immediate");
  });

  it("keeps what the user set", async () => {
    const { client } = newTestApi();
    const created = await client.storageClasses.create({
      metadata: { name: "local" },
      provisioner: "kubernetes.io/no-provisioner",
      reclaimPolicy: "Retain",
      volumeBindingMode: "WaitForFirstConsumer",
    });
    assert.equal(created.reclaimPolicy, "Retain");
    assert.equal(created.volumeBindingMode, "WaitForFirstConsumer");
  });

  it("defaults PVs to Retain and Filesystem, and claims to Filesystem", async () => {
    const { client } = newTestApi();
    const pv = await client.persistentVolumes.create({
      metadata: { name: "pv-1" },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/data" } },
    });
    assert.equal(pv.spec?.persistentVolumeReclaimPolicy, "Retain");
    assert.equal(pv.spec?.volumeMode, "Filesystem");
    const pvc = await client.persistentVolumeClaims.create({
      metadata: { name: "data", namespace: "default" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    });
    assert.equal(pvc.spec?.volumeMode, "Filesystem");
  });

  it("defaults a pod's grace period, restart policy, scheduler and volume file modes", async () => {
    const { client } = newTestApi();
    const pod = await client.pods.create({
      metadata: { name: "web", namespace: "default" },
      spec: {
        containers: [{ name: "web", image: "nginx", volumeMounts: [{ name: "conf", mountPath: "/etc/conf" }] }],
        volumes: [{ name: "conf", configMap: { name: "conf" } }],
      },
    });
    assert.equal(pod.spec?.terminationGracePeriodSeconds, 30);
    assert.equal(pod.spec?.restartPolicy, "Always");
    assert.equal(pod.spec?.schedulerName, "default-scheduler");
    assert.equal(pod.spec?.volumes?.[0]?.configMap?.defaultMode, 0o644);
  });

  it("defaults the pod template and claim templates inside a StatefulSet", () => {
    const set = applyDefaults("StatefulSet", {
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { spec: { containers: [{ name: "web", image: "nginx" }] } },
        volumeClaimTemplates: [{ metadata: { name: "www" }, spec: { accessModes: ["ReadWriteOnce"] } }],
      },
    }) as {
      spec: {
        podManagementPolicy: string;
        template: { spec: Pod["spec"] };
        volumeClaimTemplates: { spec: { volumeMode: string } }[];
      };
    };
    assert.equal(set.spec.podManagementPolicy, "OrderedReady");
    assert.equal(set.spec.template.spec?.terminationGracePeriodSeconds, 30);
    assert.equal(set.spec.volumeClaimTemplates[0]?.spec.volumeMode, "Filesystem");
  });

  it("never changes its input, and returns it unchanged when nothing is missing", () => {
    const input = Object.freeze({
      metadata: { name: "x" },
      provisioner: "p",
      reclaimPolicy: "Delete",
      volumeBindingMode: "Immediate",
    });
    assert.equal(applyDefaults("StorageClass", input), input);
    const frozenPod = Object.freeze({
      spec: Object.freeze({ containers: Object.freeze([Object.freeze({ name: "c", image: "i" })]) }),
    });
    const defaulted = applyDefaults("Pod", frozenPod) as { spec: { restartPolicy: string } };
    assert.equal(defaulted.spec.restartPolicy, "Always");
    assert.equal((frozenPod.spec as { restartPolicy?: string }).restartPolicy, undefined);
  });
});

describe("admission on create", () => {
  it("gives a pod Kubernetes' 300 s tolerations for not-ready and unreachable nodes", async () => {
    const { client } = newTestApi();
    const pod = await client.pods.create({
      metadata: { name: "web", namespace: "default" },
      spec: { containers: [{ name: "web", image: "nginx" }] },
    });
    const tolerations = pod.spec?.tolerations ?? [];
    assert.deepEqual(
      tolerations.map((t) => `${t.key}:${t.effect}:${t.tolerationSeconds}`),
      ["node.kubernetes.io/not-ready:NoExecute:300", "node.kubernetes.io/unreachable:NoExecute:300"],
    );
  });

  it("leaves a pod that already tolerates the taint alone", async () => {
    const { client } = newTestApi();
    const pod = await client.pods.create({
      metadata: { name: "web", namespace: "default" },
      spec: {
        containers: [{ name: "web", image: "nginx" }],
        tolerations: [{ operator: "Exists" }],
      },
    });
    assert.equal(pod.spec?.tolerations?.length, 1);
  });
});
