import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf, stored } from "./testing/test-support.ts";

type Manifest = { metadata: Record<string, unknown>; spec: Record<string, unknown> };

/** The RBD volume of seed 004, without its namespace (the API server drops it for cluster-scoped kinds). */
const rbdVolume: Manifest = {
  metadata: { name: "user-pv", labels: { pv: "user-pv" } },
  spec: {
    capacity: { storage: "1Gi" },
    accessModes: ["ReadWriteOnce"],
    rbd: {
      monitors: ["192.168.22.47:6789", "192.168.22.48:6789", "192.168.22.49:6789"],
      pool: "sock_shop",
      image: "user-pv",
      user: "admin",
      secretRef: { name: "ceph-secret" },
      fsType: "ext4",
      readOnly: false,
    },
    persistentVolumeReclaimPolicy: "Recycle",
  },
};

const nfsVolume: Manifest = {
  metadata: { name: "shared" },
  spec: {
    capacity: { storage: "100Gi" },
    accessModes: ["ReadWriteMany"],
    nfs: { server: "nfs.example.com", path: "/exports/shared" },
    persistentVolumeReclaimPolicy: "Retain",
    mountOptions: ["nfsvers=4.1"],
    storageClassName: "",
  },
};

const csiVolume: Manifest = {
  metadata: { name: "pvc-6f1c" },
  spec: {
    capacity: { storage: "5Gi" },
    accessModes: ["ReadWriteOnce"],
    csi: {
      driver: "hostpath.csi.k8s.io",
      volumeHandle: "6f1c-4f1e",
      fsType: "ext4",
      volumeAttributes: { "storage.kubernetes.io/csiProvisionerIdentity": "1700000000000-8081-hostpath.csi.k8s.io" },
      nodeStageSecretRef: { name: "stage-secret", namespace: "storage" },
    },
    claimRef: { namespace: "default", name: "data" },
    persistentVolumeReclaimPolicy: "Delete",
    storageClassName: "csi-hostpath",
    volumeMode: "Block",
  },
};

const localVolume: Manifest = {
  metadata: { name: "local-disk-1" },
  spec: {
    capacity: { storage: "50Gi" },
    accessModes: ["ReadWriteOnce"],
    local: { path: "/mnt/disks/ssd1" },
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-1"] }] },
        ],
      },
    },
  },
};

describe("PersistentVolume", () => {
  for (const [name, volume] of Object.entries({ rbdVolume, nfsVolume, csiVolume, localVolume })) {
    it(`accepts ${name}`, () => {
      assert.deepEqual(problemsOf("PersistentVolume", volume), []);
    });
  }

  it("refuses the namespace seed 004 writes, as a cluster-scoped kind has none", () => {
    const namespaced = changed(rbdVolume, (copy) => {
      copy.metadata.namespace = "sock-shop";
    });
    assert.deepEqual(problemsOf("PersistentVolume", namespaced), [
      "metadata.namespace: Forbidden: not allowed on this type",
    ]);
  });

  it("requires a capacity with storage", () => {
    const noCapacity = changed(nfsVolume, (copy) => {
      delete copy.spec.capacity;
    });
    assert.deepEqual(problemsOf("PersistentVolume", noCapacity), ["spec.capacity: Required value"]);
    const cpu = changed(nfsVolume, (copy) => {
      copy.spec.capacity = { cpu: "1" };
    });
    assert.deepEqual(problemsOf("PersistentVolume", cpu), [
      'spec.capacity: Unsupported value: {"cpu":"1"}: supported values: "storage"',
    ]);
  });

  it("reports a capacity of the wrong type or value", () => {
    const number = changed(nfsVolume, (copy) => {
      copy.spec.capacity = 100;
    });
    assert.deepEqual(problemsOf("PersistentVolume", number), [
      'spec.capacity: Invalid value: "integer": spec.capacity in body must be of type object: "integer"',
    ]);
    const zero = changed(nfsVolume, (copy) => {
      copy.spec.capacity = { storage: "0Gi" };
    });
    assert.deepEqual(problemsOf("PersistentVolume", zero), [
      'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
    ]);
  });

  it("requires access modes", () => {
    const noModes = changed(nfsVolume, (copy) => {
      delete copy.spec.accessModes;
    });
    assert.deepEqual(problemsOf("PersistentVolume", noModes), ["spec.accessModes: Required value"]);
  });

  it("requires exactly one volume source", () => {
    const none = changed(nfsVolume, (copy) => {
      delete copy.spec.nfs;
    });
    assert.deepEqual(problemsOf("PersistentVolume", none), ["spec: Required value: must specify a volume type"]);
    const two = changed(nfsVolume, (copy) => {
      copy.spec.hostPath = { path: "/srv" };
    });
    assert.deepEqual(problemsOf("PersistentVolume", two), [
      "spec.nfs: Forbidden: may not specify more than 1 volume type",
    ]);
  });

  it("requires an NFS server and an absolute path", () => {
    const relative = changed(nfsVolume, (copy) => {
      copy.spec.nfs = { path: "exports/shared" };
    });
    assert.deepEqual(problemsOf("PersistentVolume", relative), [
      "spec.nfs.server: Required value",
      'spec.nfs.path: Invalid value: "exports/shared": must be an absolute path',
    ]);
  });

  it("requires RBD monitors and image", () => {
    const empty = changed(rbdVolume, (copy) => {
      copy.spec.rbd = { pool: "rbd" };
    });
    assert.deepEqual(problemsOf("PersistentVolume", empty), [
      "spec.rbd.monitors: Required value",
      "spec.rbd.image: Required value",
    ]);
  });

  it("requires a CSI driver and volume handle, and complete secret references", () => {
    const bare = changed(csiVolume, (copy) => {
      copy.spec.csi = { driver: "Hostpath_CSI", nodePublishSecretRef: { name: "s" } };
    });
    const problems = problemsOf("PersistentVolume", bare);
    assert.match(
      problems[0] ?? "",
      /^spec\.csi\.driver: Invalid value: "Hostpath_CSI": a lowercase RFC 1123 subdomain/,
    );
    assert.deepEqual(problems.slice(1), [
      "spec.csi.volumeHandle: Required value",
      "spec.csi.nodePublishSecretRef.namespace: Required value",
    ]);
  });

  it("requires node affinity for a local volume", () => {
    const unpinned = changed(localVolume, (copy) => {
      delete copy.spec.nodeAffinity;
    });
    assert.deepEqual(problemsOf("PersistentVolume", unpinned), [
      "spec.nodeAffinity: Required value: Local volume requires node affinity",
    ]);
    const emptyAffinity = changed(localVolume, (copy) => {
      copy.spec.nodeAffinity = {};
    });
    assert.deepEqual(problemsOf("PersistentVolume", emptyAffinity), [
      "spec.nodeAffinity.required: Required value: must specify required node constraints",
    ]);
    const noTerms = changed(localVolume, (copy) => {
      copy.spec.nodeAffinity = { required: { nodeSelectorTerms: [] } };
    });
    assert.deepEqual(problemsOf("PersistentVolume", noTerms), [
      "spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one node selector term",
    ]);
  });

  it("checks node selector operators", () => {
    const badOperator = changed(localVolume, (copy) => {
      copy.spec.nodeAffinity = {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "Equals", values: ["a"] }] }] },
      };
    });
    assert.deepEqual(problemsOf("PersistentVolume", badOperator), [
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator',
    ]);
  });

  it("names the supported reclaim policies and volume modes", () => {
    const odd = changed(nfsVolume, (copy) => {
      copy.spec.persistentVolumeReclaimPolicy = "Keep";
      copy.spec.volumeMode = "block";
    });
    assert.deepEqual(problemsOf("PersistentVolume", odd), [
      'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
      'spec.volumeMode: Unsupported value: "block": supported values: "Block", "Filesystem"',
    ]);
  });

  it("refuses to recycle a hostPath volume of /", () => {
    const root = changed(nfsVolume, (copy) => {
      delete copy.spec.nfs;
      copy.spec.hostPath = { path: "/" };
      copy.spec.persistentVolumeReclaimPolicy = "Recycle";
    });
    assert.deepEqual(problemsOf("PersistentVolume", root), [
      "spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'",
    ]);
  });
});

describe("PersistentVolume updates", () => {
  it("lets the controllers bind, resize and re-phase a volume", () => {
    const bound = changed(nfsVolume, (copy) => {
      copy.spec.claimRef = { namespace: "default", name: "data", uid: "42" };
      copy.spec.capacity = { storage: "200Gi" };
      copy.spec.persistentVolumeReclaimPolicy = "Delete";
    });
    assert.deepEqual(problemsOf("PersistentVolume", bound, nfsVolume), []);
  });

  it("keeps the volume source", () => {
    const moved = changed(nfsVolume, (copy) => {
      copy.spec.nfs = { server: "other.example.com", path: "/exports/shared" };
    });
    assert.deepEqual(problemsOf("PersistentVolume", moved, nfsVolume), [
      "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\nchanged: spec.nfs",
    ]);
  });

  it("lets a CSI volume gain a controllerExpandSecretRef", () => {
    const expandable = changed(csiVolume, (copy) => {
      (copy.spec.csi as Record<string, unknown>).controllerExpandSecretRef = { name: "expand", namespace: "storage" };
    });
    assert.deepEqual(problemsOf("PersistentVolume", expandable, csiVolume), []);
  });

  it("keeps the volume mode and node affinity", () => {
    const changedMode = changed(csiVolume, (copy) => {
      copy.spec.volumeMode = "Filesystem";
    });
    assert.deepEqual(problemsOf("PersistentVolume", changedMode, csiVolume), [
      'spec.volumeMode: Invalid value: "Filesystem": field is immutable',
    ]);
    const moved = changed(localVolume, (copy) => {
      copy.spec.nodeAffinity = {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-2"] }] },
          ],
        },
      };
    });
    assert.deepEqual(
      problemsOf("PersistentVolume", moved, localVolume).map((line) => line.split(":")[0]),
      ["spec.nodeAffinity"],
    );
  });

  describe("a stored volume bound or released by the PV controller (claimRef changed, the rest of spec shared)", () => {
    const storedVolume = stored(nfsVolume);

    it("is accepted", () => {
      const binding = {
        ...storedVolume,
        metadata: { ...storedVolume.metadata, annotations: { "pv.kubernetes.io/bound-by-controller": "yes" } },
        spec: { ...storedVolume.spec, claimRef: { namespace: "default", name: "data", uid: "42" } },
      };
      assert.deepEqual(problemsOf("PersistentVolume", binding, storedVolume), []);
      const storedBound = stored(binding);
      const { claimRef: _released, ...releasedSpec } = storedBound.spec;
      assert.deepEqual(problemsOf("PersistentVolume", { ...storedBound, spec: releasedSpec }, storedBound), []);
    });

    it("still has its new finalizers checked", () => {
      const binding = {
        ...storedVolume,
        metadata: { ...storedVolume.metadata, finalizers: ["orphan", "foregroundDeletion"] },
        spec: { ...storedVolume.spec, claimRef: { namespace: "default", name: "data", uid: "42" } },
      };
      assert.deepEqual(problemsOf("PersistentVolume", binding, storedVolume), [
        'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
      ]);
    });
  });
});
