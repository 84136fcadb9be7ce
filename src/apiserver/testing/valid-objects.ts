/**
 * One small valid object of every kind the API server serves, named `seed` (in `default` when
 * namespaced): the starting points the API fuzz tests mutate into bad manifests and patches.
 */
import { apiVersionOf, RESOURCES, type ResourceType } from "../../api/resources.ts";

export type JsonObject = { [key: string]: unknown };

const template = {
  metadata: { labels: { app: "seed" } },
  spec: { containers: [{ name: "main", image: "busybox" }] },
};
const selector = { matchLabels: { app: "seed" } };

/** The body of each kind beside apiVersion, kind and metadata. */
const bodies: Record<string, JsonObject> = {
  Pod: { spec: { containers: [{ name: "main", image: "busybox" }] } },
  Node: { spec: {} },
  PersistentVolume: {
    spec: {
      capacity: { storage: "1Gi" },
      accessModes: ["ReadWriteOnce"],
      csi: { driver: "example.com", volumeHandle: "vol-1" },
    },
  },
  PersistentVolumeClaim: { spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
  Secret: { data: { key: "dmFsdWU=" } },
  ConfigMap: { data: { key: "value" } },
  Event: {
    involvedObject: { kind: "Pod", namespace: "default", name: "web" },
    reason: "Started",
    message: "Started container main",
    type: "Normal",
    source: { component: "kubelet" },
  },
  Namespace: { spec: {} },
  StorageClass: { provisioner: "example.com", reclaimPolicy: "Delete" },
  VolumeAttachment: { spec: { attacher: "example.com", nodeName: "node-1", source: { persistentVolumeName: "pv-1" } } },
  CSIDriver: { spec: { attachRequired: true } },
  CSINode: { spec: { drivers: [] } },
  CSIStorageCapacity: { storageClassName: "fast", capacity: "10Gi" },
  StatefulSet: { spec: { serviceName: "seed", replicas: 1, selector, template } },
  ReplicaSet: { spec: { replicas: 1, selector, template } },
  Deployment: { spec: { replicas: 1, selector, template } },
  Lease: { spec: { holderIdentity: "node-1", leaseDurationSeconds: 40 } },
  ServiceAccount: {},
  Service: { spec: { selector: { app: "seed" }, ports: [{ port: 80 }] } },
  Endpoints: { subsets: [] },
  ControllerRevision: { revision: 1, data: {} },
  Job: {
    spec: {
      template: { ...template, spec: { ...template.spec, restartPolicy: "Never" } },
    },
  },
  VolumeSnapshot: { spec: { source: { persistentVolumeClaimName: "data" } } },
  VolumeSnapshotContent: {
    spec: {
      deletionPolicy: "Delete",
      driver: "example.com",
      source: { volumeHandle: "vol-1" },
      volumeSnapshotRef: { name: "snap", namespace: "default" },
    },
  },
  VolumeSnapshotClass: { driver: "example.com", deletionPolicy: "Delete" },
  Role: { rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] },
  ClusterRole: { rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }] },
  RoleBinding: {
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "seed" },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "jane" }],
  },
  ClusterRoleBinding: {
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "seed" },
    subjects: [{ kind: "ServiceAccount", name: "default", namespace: "default" }],
  },
};

/** A fresh copy of the valid `seed` object of a kind. */
export function validObject(type: ResourceType): JsonObject {
  const body = bodies[type.kind];
  if (body === undefined) throw new Error(`no valid example of kind ${type.kind}: add one to valid-objects.ts`);
  const metadata = type.namespaced ? { name: "seed", namespace: "default" } : { name: "seed" };
  return structuredClone({ apiVersion: apiVersionOf(type), kind: type.kind, metadata, ...body });
}

/** The URL of a kind's collection (in `default` when namespaced). */
export function collectionPath(type: ResourceType): string {
  const root = type.group === "" ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  return type.namespaced ? `${root}/namespaces/default/${type.plural}` : `${root}/${type.plural}`;
}

export const SERVED_KINDS: readonly ResourceType[] = RESOURCES;
