import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume, PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import { newTestApi } from "../../../api/client/testing/test-api.ts";
import { podVolumeNames } from "../pod-volume-names.ts";
import { volumeSpecForPod } from "./volume-spec-for-pod.ts";

const claimVolume = { name: "data", persistentVolumeClaim: { claimName: "data" } };

function podWith(volume: NonNullable<NonNullable<Pod["spec"]>["volumes"]>[number], asDevice = false): Pod {
  return {
    metadata: { namespace: "default", name: "db", uid: "pod-uid" },
    spec: {
      containers: [
        {
          name: "main",
          ...(asDevice
            ? { volumeDevices: [{ name: volume.name, devicePath: "/dev/xvda" }] }
            : { volumeMounts: [{ name: volume.name, mountPath: "/data" }] }),
        },
      ],
      volumes: [volume],
    },
  };
}

async function setUp(claim: Partial<PersistentVolumeClaim> = {}, volume: Partial<PersistentVolume["spec"]> = {}) {
  const api = newTestApi();
  const pvc = await api.client.persistentVolumeClaims.create({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { namespace: "default", name: "data", ...claim.metadata },
    spec: {
      accessModes: ["ReadWriteOnce"],
      volumeName: "pv-1",
      resources: { requests: { storage: "1Gi" } },
      ...claim.spec,
    },
  });
  await api.client.persistentVolumeClaims.mutate(
    "default",
    pvc.metadata?.name ?? "",
    (draft) => {
      draft.status = { phase: "Bound", ...claim.status };
    },
    { subresource: "status" },
  );
  await api.client.persistentVolumes.create({
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: "pv-1", annotations: { "pv.beta.kubernetes.io/gid": "1234" } },
    spec: {
      capacity: { storage: "1Gi" },
      accessModes: ["ReadWriteOnce"],
      nfs: { server: "10.0.0.1", path: "/x" },
      claimRef: { namespace: "default", name: pvc.metadata?.name ?? "", uid: pvc.metadata?.uid ?? "" },
      ...volume,
    },
  });
  return api;
}

async function resolve(api: ReturnType<typeof newTestApi>, pod = podWith(claimVolume)) {
  return volumeSpecForPod(api.client, pod, pod.spec?.volumes?.[0] ?? claimVolume, podVolumeNames(pod));
}

describe("volumeSpecForPod", () => {
  it("follows a bound claim to its PV, with the claim's read-only flag and the PV's gid", async () => {
    const api = await setUp();
    const pod = podWith({ name: "data", persistentVolumeClaim: { claimName: "data", readOnly: true } });
    const { spec, volumeGidValue } = await resolve(api, pod);
    assert.equal(spec.name(), "pv-1");
    assert.equal(spec.readOnly, true);
    assert.equal(volumeGidValue, "1234");
  });

  it("uses an inline volume as it is", async () => {
    const api = newTestApi();
    const pod = podWith({ name: "tmp", emptyDir: {} });
    assert.equal((await resolve(api, pod)).spec.name(), "tmp");
  });

  for (const [what, claim, expected] of [
    ["a missing claim", undefined, 'failed to fetch PVC from API server: persistentvolumeclaims "data" not found'],
    ["an unbound claim", { status: { phase: "Pending" } }, "PVC is not bound"],
  ] as const) {
    it(`refuses ${what} with Kubernetes' text`, async () => {
      const api = claim === undefined ? newTestApi() : await setUp(claim);
      await assert.rejects(resolve(api), { message: `error processing PVC default/data: ${expected}` });
    });
  }

  it("refuses a claim being deleted without its protection finalizer, not one that still has it", async () => {
    const finalizers = ["kubernetes.io/pvc-protection", "example.com/keep"];
    const api = await setUp({ metadata: { name: "data", finalizers } });
    await api.client.persistentVolumeClaims.delete("default", "data");
    assert.equal((await resolve(api)).spec.name(), "pv-1", "a running pod keeps its volume after a restart");
    await api.client.persistentVolumeClaims.mutate("default", "data", (draft) => {
      draft.metadata = { ...draft.metadata, finalizers: ["example.com/keep"] };
    });
    await assert.rejects(resolve(api), { message: "error processing PVC default/data: PVC is being deleted" });
  });

  it("refuses a PV bound to another claim", async () => {
    const api = await setUp({}, { claimRef: { namespace: "default", name: "data", uid: "other-uid" } });
    const pvc = await api.client.persistentVolumeClaims.get("default", "data");
    await assert.rejects(resolve(api), {
      message: `error processing PVC default/data: found PV object pv-1 but its pv.Spec.ClaimRef.UID other-uid does not point to claim.UID ${pvc.metadata?.uid}`,
    });
  });

  it("refuses a Filesystem PV used as a raw device", async () => {
    const api = await setUp();
    await assert.rejects(resolve(api, podWith(claimVolume, true)), {
      message: "volume data has volumeMode Filesystem, but is specified in volumeDevices",
    });
  });

  it("refuses a generic ephemeral volume's claim that the pod does not own", async () => {
    const api = await setUp({ metadata: { name: "db-data" } });
    const pod = podWith({ name: "data", ephemeral: { volumeClaimTemplate: { spec: {} } } });
    await assert.rejects(
      volumeSpecForPod(api.client, pod, pod.spec?.volumes?.[0] ?? claimVolume, podVolumeNames(pod)),
      {
        message: "PVC default/db-data was not created for pod default/db (pod is not owner)",
      },
    );
  });
});
