import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KindName } from "../objects.ts";
import { causesOf, problemsOf } from "./testing/test-support.ts";

/** Manifests from the seed incidents and the Kubernetes docs, as a user would apply them. */
const validManifests: ReadonlyArray<[KindName, Record<string, unknown>]> = [
  [
    "PersistentVolume",
    {
      metadata: { name: "xx-pv" },
      spec: {
        accessModes: ["ReadWriteMany"],
        capacity: { storage: "1Gi" },
        nfs: { path: "/xx", server: "sxxx" },
        persistentVolumeReclaimPolicy: "Retain",
        volumeMode: "Filesystem",
      },
    },
  ],
  [
    "PersistentVolumeClaim",
    {
      metadata: { name: "pvc1", namespace: "default" },
      spec: { accessModes: ["ReadWriteMany"], resources: { requests: { storage: "1Gi" } } },
    },
  ],
  [
    "Pod",
    {
      metadata: { name: "busybox1", namespace: "default" },
      spec: {
        volumes: [{ name: "pvc1", persistentVolumeClaim: { claimName: "pvc1" } }],
        containers: [
          {
            name: "busybox",
            image: "busybox",
            command: ["sleep", "36000000"],
            volumeMounts: [{ mountPath: "/pod/data", name: "pvc1" }],
          },
        ],
      },
    },
  ],
  [
    "PersistentVolume",
    {
      metadata: { name: "pvc-c2160217", annotations: { "pv.kubernetes.io/provisioned-by": "hostpath.csi.k8s.io" } },
      spec: {
        accessModes: ["ReadWriteOnce"],
        capacity: { storage: "1Gi" },
        claimRef: {
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          name: "csi-pvc",
          namespace: "default",
          uid: "c2160217",
        },
        csi: {
          driver: "hostpath.csi.k8s.io",
          volumeAttributes: {
            "storage.kubernetes.io/csiProvisionerIdentity": "1612871894385-8081-hostpath.csi.k8s.io",
          },
          volumeHandle: "c8ebeba1",
        },
      },
    },
  ],
  [
    "Pod",
    {
      metadata: { name: "csi-s3-test-nginx", namespace: "default" },
      spec: {
        containers: [
          {
            name: "csi-s3-test-nginx",
            image: "nginx",
            livenessProbe: {
              failureThreshold: 3,
              initialDelaySeconds: 20,
              exec: { command: ["ls", "/var/lib/www/html"] },
            },
            volumeMounts: [
              { mountPath: "/var/lib/www/html", name: "webroot" },
              { mountPath: "/var/lib/www/html2", name: "webroot2" },
            ],
          },
        ],
        volumes: [
          { name: "webroot", persistentVolumeClaim: { claimName: "csi-s3-pvc", readOnly: false } },
          { name: "webroot2", persistentVolumeClaim: { claimName: "csi-s3-pvc2", readOnly: false } },
        ],
      },
    },
  ],
  [
    "Pod",
    {
      metadata: { name: "csi-hostpath-attacher-0", namespace: "default", labels: { app: "csi-hostpath-attacher" } },
      spec: {
        containers: [
          {
            name: "csi-attacher",
            image: "registry.k8s.io/sig-storage/csi-attacher:v4.6.1",
            volumeMounts: [{ mountPath: "/csi", name: "socket-dir" }],
          },
        ],
        volumes: [
          {
            name: "socket-dir",
            hostPath: { path: "/var/lib/kubelet/plugins/csi-hostpath", type: "DirectoryOrCreate" },
          },
        ],
      },
    },
  ],
  [
    "Node",
    {
      metadata: { name: "10-10-88-113" },
      status: {
        volumesAttached: [
          {
            devicePath: "csi-add9fc778d9593d01818d65ccde7013e87327d9f675b47df42a34b860c581711",
            name: "kubernetes.io/csi/csi-qcfsplugin^csi-qcfs-volume-4faa18f5bbbd11e8-1365",
          },
        ],
        volumesInUse: ["kubernetes.io/csi/csi-qcfsplugin^csi-qcfs-volume-4faa18f5bbbd11e8-1365"],
      },
    },
  ],
  ["Namespace", { metadata: { name: "sock-shop" } }],
  ["Secret", { metadata: { name: "ceph-secret", namespace: "sock-shop" }, data: { key: "a2V5" } }],
  [
    "ConfigMap",
    { metadata: { name: "kube-root-ca.crt", namespace: "default" }, data: { "ca.crt": "-----BEGIN-----" } },
  ],
  ["CSIDriver", { metadata: { name: "hostpath.csi.k8s.io" }, spec: { attachRequired: true } }],
  ["CSINode", { metadata: { name: "node-1" }, spec: { drivers: [{ name: "hostpath.csi.k8s.io", nodeID: "node-1" }] } }],
  ["StorageClass", { metadata: { name: "standard" }, provisioner: "kubernetes.io/no-provisioner" }],
  [
    "VolumeAttachment",
    {
      metadata: { name: "csi-123" },
      spec: { attacher: "hostpath.csi.k8s.io", nodeName: "node-1", source: { persistentVolumeName: "pvc-c2160217" } },
    },
  ],
  [
    "Lease",
    {
      metadata: { name: "node-1", namespace: "kube-node-lease" },
      spec: { holderIdentity: "node-1", leaseDurationSeconds: 40 },
    },
  ],
  [
    "Event",
    {
      metadata: { name: "xx-pv.1", namespace: "default" },
      involvedObject: { kind: "PersistentVolume", name: "xx-pv" },
      reason: "VolumeRecycled",
    },
  ],
];

/** Values of every JSON type, to put where a field of another type belongs. */
const wrongValues: readonly unknown[] = [null, 0, -1, 1.5, "", "x", true, [], [1], ["x"], {}, { a: 1 }, [null], [{}]];

/** Every path into a manifest (objects and lists), to replace with wrong values. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value))
    return [prefix, ...value.flatMap((element, position) => paths(element, [...prefix, position]))];
  if (typeof value === "object" && value !== null) {
    return [prefix, ...Object.entries(value).flatMap(([field, element]) => paths(element, [...prefix, field]))];
  }
  return [prefix];
}

function replacedAt(manifest: Record<string, unknown>, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(manifest);
  let parent: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  parent[path[path.length - 1] as string | number] = replacement;
  return copy;
}

const knownReasons = new Set([
  "FieldValueRequired",
  "FieldValueInvalid",
  "FieldValueNotSupported",
  "FieldValueDuplicate",
  "FieldValueForbidden",
  "FieldValueTooLong",
  "FieldValueNotFound",
  "FieldValueTypeInvalid",
]);

describe("validateObject", () => {
  for (const [kind, manifest] of validManifests) {
    it(`accepts ${kind} ${String((manifest.metadata as { name: string }).name)}`, () => {
      assert.deepEqual(problemsOf(kind, manifest), []);
    });

    it(`accepts re-applying ${kind} ${String((manifest.metadata as { name: string }).name)} unchanged`, () => {
      assert.deepEqual(problemsOf(kind, structuredClone(manifest), manifest), []);
    });
  }

  it("reports, never throws, whatever JSON type sits in any field of any kind", () => {
    let checked = 0;
    for (const [kind, manifest] of validManifests) {
      for (const path of paths(manifest)) {
        for (const wrong of wrongValues) {
          const broken = replacedAt(manifest, path, wrong);
          for (const cause of [...causesOf(kind, broken), ...causesOf(kind, broken, manifest)]) {
            assert.equal(typeof cause.field, "string");
            assert.ok(knownReasons.has(cause.reason), `${kind} ${path.join(".")}: ${cause.reason}`);
            assert.ok(cause.message.length > 0);
          }
          checked++;
        }
      }
    }
    assert.ok(checked > 1000, `only ${checked} variations checked`);
  });

  it("reports an object that is not an object", () => {
    assert.deepEqual(problemsOf("Pod", "pod.yaml"), ['Invalid value: "string": body must be of type object: "string"']);
  });

  it("reports each distinct problem once", () => {
    const claim = {
      metadata: { name: "c", namespace: "default" },
      spec: { accessModes: ["ReadWriteSome", "ReadWriteSome"], resources: { requests: { storage: "1Gi" } } },
    };
    assert.equal(problemsOf("PersistentVolumeClaim", claim).length, 1);
  });
});
