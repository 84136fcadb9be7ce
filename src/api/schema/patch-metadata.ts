/**
 * Kubernetes' patch and merge metadata, which the `kubernetes-types` declarations do not carry:
 * the Go struct tags `patchStrategy`/`patchMergeKey` and the markers `+listType`, `+listMapKey`,
 * `+mapType` and `+structType` of k8s.io/api and k8s.io/apimachinery (release 1.30/1.31).
 * Strategic merge patch reads the first two, server-side apply the markers.
 *
 * Keys are OpenAPI definition names; field entries name a property of that definition. The
 * schema generator refuses an entry whose definition or field does not exist, so a typo here
 * cannot go unnoticed.
 */

export interface FieldPatchMetadata {
  /** `merge`, `retainKeys` or `merge,retainKeys` (the Go `patchStrategy` tag). */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  readonly listType?: "atomic" | "set" | "map";
  readonly listMapKeys?: readonly string[];
  readonly mapType?: "atomic" | "granular";
}

const core = "io.k8s.api.core.v1";
const meta = "io.k8s.apimachinery.pkg.apis.meta.v1";
const apps = "io.k8s.api.apps.v1";
const storage = "io.k8s.api.storage.v1";

const atomic: FieldPatchMetadata = { listType: "atomic" };
const set: FieldPatchMetadata = { listType: "set" };
const atomicMap: FieldPatchMetadata = { mapType: "atomic" };

/** A list merged by strategic merge patch on `key` and keyed by the same field for apply. */
function mergeByKey(key: string, extraMapKeys: readonly string[] = []): FieldPatchMetadata {
  return { patchStrategy: "merge", patchMergeKey: key, listType: "map", listMapKeys: [key, ...extraMapKeys] };
}

/** Conditions: merged by type, one entry per type. */
const conditions = mergeByKey("type");

export const fieldPatchMetadata: Readonly<Record<string, Readonly<Record<string, FieldPatchMetadata>>>> = {
  [`${meta}.ObjectMeta`]: {
    finalizers: { patchStrategy: "merge", listType: "set" },
    ownerReferences: mergeByKey("uid"),
    managedFields: atomic,
  },
  [`${meta}.LabelSelector`]: { matchExpressions: atomic },
  [`${meta}.LabelSelectorRequirement`]: { values: atomic },
  [`${meta}.StatusDetails`]: { causes: atomic },

  [`${core}.PodSpec`]: {
    volumes: { ...mergeByKey("name"), patchStrategy: "merge,retainKeys" },
    initContainers: mergeByKey("name"),
    containers: mergeByKey("name"),
    ephemeralContainers: mergeByKey("name"),
    imagePullSecrets: mergeByKey("name"),
    hostAliases: mergeByKey("ip"),
    tolerations: atomic,
    readinessGates: atomic,
    nodeSelector: atomicMap,
    topologySpreadConstraints: mergeByKey("topologyKey", ["whenUnsatisfiable"]),
    schedulingGates: mergeByKey("name"),
    resourceClaims: { ...mergeByKey("name"), patchStrategy: "merge,retainKeys" },
  },
  [`${core}.PodStatus`]: {
    conditions,
    podIPs: mergeByKey("ip"),
    hostIPs: { patchStrategy: "merge", patchMergeKey: "ip", listType: "atomic" },
    initContainerStatuses: atomic,
    containerStatuses: atomic,
    ephemeralContainerStatuses: atomic,
    resourceClaimStatuses: { ...mergeByKey("name"), patchStrategy: "merge,retainKeys" },
  },
  [`${core}.Container`]: containerFields(),
  [`${core}.EphemeralContainer`]: containerFields(),
  [`${core}.ContainerStatus`]: { volumeMounts: mergeByKey("mountPath") },
  [`${core}.ResourceRequirements`]: { claims: { listType: "map", listMapKeys: ["name"] } },
  [`${core}.Capabilities`]: { add: atomic, drop: atomic },
  [`${core}.ExecAction`]: { command: atomic },
  [`${core}.HTTPGetAction`]: { httpHeaders: atomic },
  [`${core}.PodSecurityContext`]: { supplementalGroups: atomic, sysctls: atomic },
  [`${core}.PodDNSConfig`]: { nameservers: atomic, searches: atomic, options: atomic },
  [`${core}.HostAlias`]: { hostnames: atomic },
  [`${core}.NodeAffinity`]: { preferredDuringSchedulingIgnoredDuringExecution: atomic },
  [`${core}.PodAffinity`]: {
    requiredDuringSchedulingIgnoredDuringExecution: atomic,
    preferredDuringSchedulingIgnoredDuringExecution: atomic,
  },
  [`${core}.PodAntiAffinity`]: {
    requiredDuringSchedulingIgnoredDuringExecution: atomic,
    preferredDuringSchedulingIgnoredDuringExecution: atomic,
  },
  [`${core}.PodAffinityTerm`]: { namespaces: atomic, matchLabelKeys: atomic, mismatchLabelKeys: atomic },
  [`${core}.TopologySpreadConstraint`]: { matchLabelKeys: atomic },
  [`${core}.NodeSelector`]: { nodeSelectorTerms: atomic },
  [`${core}.NodeSelectorTerm`]: { matchExpressions: atomic, matchFields: atomic },
  [`${core}.NodeSelectorRequirement`]: { values: atomic },
  [`${core}.TopologySelectorTerm`]: { matchLabelExpressions: atomic },
  [`${core}.TopologySelectorLabelRequirement`]: { values: atomic },
  [`${core}.SecretVolumeSource`]: { items: atomic },
  [`${core}.ConfigMapVolumeSource`]: { items: atomic },
  [`${core}.SecretProjection`]: { items: atomic },
  [`${core}.ConfigMapProjection`]: { items: atomic },
  [`${core}.DownwardAPIVolumeSource`]: { items: atomic },
  [`${core}.DownwardAPIProjection`]: { items: atomic },
  [`${core}.ProjectedVolumeSource`]: { sources: atomic },
  [`${core}.ISCSIVolumeSource`]: { portals: atomic },
  [`${core}.ISCSIPersistentVolumeSource`]: { portals: atomic },
  [`${core}.RBDVolumeSource`]: { monitors: atomic },
  [`${core}.RBDPersistentVolumeSource`]: { monitors: atomic },
  [`${core}.CephFSVolumeSource`]: { monitors: atomic },
  [`${core}.CephFSPersistentVolumeSource`]: { monitors: atomic },
  [`${core}.FCVolumeSource`]: { targetWWNs: atomic, wwids: atomic },

  [`${core}.NodeSpec`]: { podCIDRs: { patchStrategy: "merge", listType: "set" }, taints: atomic },
  [`${core}.NodeStatus`]: {
    conditions,
    addresses: { patchStrategy: "merge", patchMergeKey: "type", listType: "atomic" },
    images: atomic,
    volumesInUse: atomic,
    volumesAttached: atomic,
    runtimeHandlers: atomic,
  },
  [`${core}.ContainerImage`]: { names: atomic },

  [`${core}.PersistentVolumeSpec`]: { accessModes: atomic, mountOptions: atomic },
  [`${core}.PersistentVolumeClaimSpec`]: { accessModes: atomic },
  [`${core}.PersistentVolumeClaimStatus`]: {
    accessModes: atomic,
    conditions,
    allocatedResourceStatuses: { mapType: "granular" },
  },
  [`${core}.NamespaceSpec`]: { finalizers: atomic },
  [`${core}.NamespaceStatus`]: { conditions },

  [`${storage}.StorageClass`]: { mountOptions: atomic, allowedTopologies: atomic },
  [`${storage}.CSIDriverSpec`]: { volumeLifecycleModes: set, tokenRequests: atomic },
  [`${storage}.CSINodeSpec`]: { drivers: mergeByKey("name") },
  [`${storage}.CSINodeDriver`]: { topologyKeys: atomic },

  [`${apps}.DeploymentSpec`]: { strategy: { patchStrategy: "retainKeys" } },
  [`${apps}.DeploymentStatus`]: { conditions },
  [`${apps}.ReplicaSetStatus`]: { conditions },
  [`${apps}.StatefulSetSpec`]: { volumeClaimTemplates: atomic },
  [`${apps}.StatefulSetStatus`]: { conditions },
};

/** The fields Container and EphemeralContainer share (`EphemeralContainerCommon` in Go). */
function containerFields(): Readonly<Record<string, FieldPatchMetadata>> {
  return {
    command: atomic,
    args: atomic,
    ports: mergeByKey("containerPort", ["protocol"]),
    envFrom: atomic,
    env: mergeByKey("name"),
    volumeMounts: mergeByKey("mountPath"),
    volumeDevices: mergeByKey("devicePath"),
    resizePolicy: atomic,
  };
}

/**
 * Structs marked `+structType=atomic` (served as `x-kubernetes-map-type: atomic`): apply replaces
 * them whole instead of merging field by field.
 */
export const atomicStructs: readonly string[] = [
  `${meta}.LabelSelector`,
  `${meta}.OwnerReference`,
  `${core}.LocalObjectReference`,
  `${core}.ObjectReference`,
  `${core}.TypedLocalObjectReference`,
  `${core}.SecretReference`,
  `${core}.NodeSelector`,
  `${core}.NodeSelectorTerm`,
  `${core}.TopologySelectorTerm`,
  `${core}.ConfigMapKeySelector`,
  `${core}.SecretKeySelector`,
  `${core}.ObjectFieldSelector`,
  `${core}.ResourceFieldSelector`,
];
