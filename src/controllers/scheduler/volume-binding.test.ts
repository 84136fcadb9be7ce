import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  CSIDriver,
  CSIStorageCapacity,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
} from "../../api/objects.ts";
import { annBindCompleted, annSelectedNode } from "./constants.ts";
import { filterVolumes, preFilterVolumes, type VolumeView } from "./volume-binding.ts";

function view(
  claims: PersistentVolumeClaim[],
  volumes: PersistentVolume[],
  classes: StorageClass[],
  drivers: CSIDriver[] = [],
  capacities: CSIStorageCapacity[] = [],
): VolumeView {
  return {
    csiDriver: (name) => drivers.find((driver) => driver.metadata?.name === name),
    storageCapacities: () => capacities,
    claim: (namespace, name) =>
      claims.find((claim) => claim.metadata?.namespace === namespace && claim.metadata?.name === name),
    volume: (name) => volumes.find((volume) => volume.metadata?.name === name),
    volumesOfClass: (className) => volumes.filter((volume) => (volume.spec?.storageClassName ?? "") === className),
    storageClass: (name) => classes.find((storageClass) => storageClass.metadata?.name === name),
  };
}

function pod(volumes: NonNullable<Pod["spec"]>["volumes"], uid = "pod-uid"): Pod {
  return {
    metadata: { namespace: "shop", name: "db", uid },
    spec: { containers: [{ name: "main", image: "busybox" }], volumes },
  };
}

function claim(name: string, extra: Partial<PersistentVolumeClaim> = {}): PersistentVolumeClaim {
  return {
    metadata: { namespace: "shop", name, uid: `${name}-uid`, ...extra.metadata },
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: "1Gi" } },
      storageClassName: "wffc",
      ...extra.spec,
    },
    ...(extra.status ? { status: extra.status } : {}),
  };
}

const wffc: StorageClass = {
  metadata: { name: "wffc" },
  provisioner: "example.com/disk",
  volumeBindingMode: "WaitForFirstConsumer",
};
const node1: Node = { metadata: { name: "node-1", labels: { "kubernetes.io/hostname": "node-1" } } };

describe("preFilterVolumes", () => {
  it("names the claim problems no node can fix, as kube-scheduler words them", () => {
    const uses = (name: string) => pod([{ name: "data", persistentVolumeClaim: { claimName: name } }]);
    const lost = claim("lost", { spec: { volumeName: "pv-gone" }, status: { phase: "Lost" } });
    const leaving = claim("leaving", { metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" } });
    const volumes = view([lost, leaving], [], [wffc]);
    assert.deepEqual(preFilterVolumes(uses("missing"), volumes), {
      kind: "rejected",
      message: 'persistentvolumeclaim "missing" not found',
    });
    assert.deepEqual(preFilterVolumes(uses("lost"), volumes), {
      kind: "rejected",
      message: 'persistentvolumeclaim "lost" bound to non-existent persistentvolume "pv-gone"',
    });
    assert.deepEqual(preFilterVolumes(uses("leaving"), volumes), {
      kind: "rejected",
      message: 'persistentvolumeclaim "leaving" is being deleted',
    });
  });

  it("waits for the ephemeral volume controller, and refuses a claim the pod does not own", () => {
    const ephemeral = pod([{ name: "scratch", ephemeral: { volumeClaimTemplate: { spec: {} } } }]);
    assert.deepEqual(preFilterVolumes(ephemeral, view([], [], [wffc])), {
      kind: "rejected",
      message: 'waiting for ephemeral volume controller to create the persistentvolumeclaim "db-scratch"',
    });
    const foreign = claim("db-scratch");
    assert.deepEqual(preFilterVolumes(ephemeral, view([foreign], [], [wffc])), {
      kind: "rejected",
      message: "PVC shop/db-scratch was not created for pod shop/db (pod is not owner)",
    });
  });

  it("needs nothing from a pod without claims", () => {
    assert.deepEqual(preFilterVolumes(pod([{ name: "tmp", emptyDir: {} }]), view([], [], [])), { kind: "none" });
  });
});

describe("filterVolumes", () => {
  it("rules out a node other than the one a claim was promised to", () => {
    const promised = claim("data", { metadata: { annotations: { [annSelectedNode]: "node-2" } } });
    const result = filterVolumes(
      { bound: [], unboundDelayBinding: [promised], unboundImmediate: [] },
      node1,
      view([promised], [], [wffc]),
    );
    assert.deepEqual(result.reasons, ["node(s) didn't find available persistent volumes to bind"]);
  });

  it("reports both a volume node conflict and a missing volume a node fails for", () => {
    const onNode2: PersistentVolume = {
      metadata: { name: "pv-2" },
      spec: {
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-2"] }] },
            ],
          },
        },
      },
    };
    const boundTo = (volumeName: string) =>
      claim(`uses-${volumeName}`, { spec: { volumeName }, metadata: { annotations: { [annBindCompleted]: "yes" } } });
    const conflict = filterVolumes(
      { bound: [boundTo("pv-2")], unboundDelayBinding: [], unboundImmediate: [] },
      node1,
      view([], [onNode2], [wffc]),
    );
    assert.deepEqual(conflict.reasons, ["node(s) had volume node affinity conflict"]);
    const missing = filterVolumes(
      { bound: [boundTo("pv-gone")], unboundDelayBinding: [], unboundImmediate: [] },
      node1,
      view([], [], [wffc]),
    );
    assert.deepEqual(missing.reasons, ["node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"]);
  });

  it("provisions on a node the class's topology allows", () => {
    const data = claim("data");
    const result = filterVolumes(
      { bound: [], unboundDelayBinding: [data], unboundImmediate: [] },
      node1,
      view([data], [], [wffc]),
    );
    assert.deepEqual(result.reasons, []);
    assert.deepEqual(result.podVolumes, { staticBindings: [], dynamicProvisions: [data] });
  });
});

describe("filterVolumes: storage capacity (CSIDriver storageCapacity: true)", () => {
  const driver: CSIDriver = { metadata: { name: "example.com/disk" }, spec: { storageCapacity: true } };
  const published = (nodeName: string, capacity: string, maximumVolumeSize?: string): CSIStorageCapacity => ({
    metadata: { namespace: "kube-system", name: `csisc-${nodeName}` },
    storageClassName: "wffc",
    nodeTopology: { matchLabels: { "kubernetes.io/hostname": nodeName } },
    capacity,
    ...(maximumVolumeSize === undefined ? {} : { maximumVolumeSize }),
  });
  const verdict = (capacities: CSIStorageCapacity[], drivers: CSIDriver[] = [driver]) => {
    const data = claim("data");
    return filterVolumes(
      { bound: [], unboundDelayBinding: [data], unboundImmediate: [] },
      node1,
      view([data], [], [wffc], drivers, capacities),
    );
  };

  it("rules out a node whose published capacity is smaller than the claim", () => {
    const small = verdict([published("node-1", "512Mi")]);
    assert.deepEqual(small.reasons, ["node(s) did not have enough free storage"]);
    assert.deepEqual(small.podVolumes.dynamicProvisions, []);
  });

  it("rules out a node no CSIStorageCapacity covers, however large the others are", () => {
    assert.deepEqual(verdict([published("node-2", "100Gi")]).reasons, ["node(s) did not have enough free storage"]);
  });

  it("provisions where the capacity covers the request", () => {
    const room = verdict([published("node-1", "1Gi")]);
    assert.deepEqual(room.reasons, []);
    assert.equal(room.podVolumes.dynamicProvisions.length, 1);
  });

  it("prefers maximumVolumeSize over capacity when both are published", () => {
    assert.deepEqual(verdict([published("node-1", "10Gi", "512Mi")]).reasons, [
      "node(s) did not have enough free storage",
    ]);
  });

  it("does not check drivers that do not opt in", () => {
    const optedOut: CSIDriver = { metadata: { name: "example.com/disk" }, spec: {} };
    assert.deepEqual(verdict([], [optedOut]).reasons, []);
    assert.deepEqual(verdict([], []).reasons, []);
  });
});
