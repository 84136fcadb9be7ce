/**
 * The Node object a kubelet registers and the status it keeps reporting (kubelet_node_status.go
 * initialNode and nodestatus setters): well-known labels, the controller-managed attach/detach
 * annotation, addresses, capacity, node info, and the four standard conditions with the healthy
 * node's reasons and messages (`KubeletReady`, `kubelet is posting ready status`).
 */
import type { Node, NodeCondition, NodeStatus, Taint } from "kubernetes-types/core/v1.js";
import { jsonEqual } from "../../api/store/json-equal.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import {
  archLabel,
  betaArchLabel,
  betaOsLabel,
  containerRuntimeVersion,
  controllerManagedAttachDetachAnnotation,
  defaultNodeCapacity,
  hostnameLabel,
  kubeletPort,
  kubeletVersion,
  nodeArch,
  nodeOs,
  osLabel,
  readyConditionMessage,
  readyConditionReason,
  regionLabel,
  simulatedKernelVersion,
  simulatedOsImage,
  zoneLabel,
} from "../constants.ts";

/** What a node says about itself when it registers. */
export interface NodeIdentity {
  nodeName: string;
  /** The node's InternalIP. */
  address: string;
  /** The port the kubelet's server listens on (`status.daemonEndpoints.kubeletEndpoint.Port`); 10250 by default. */
  kubeletPort?: number;
  zone?: string;
  region?: string;
  /** Extra labels (`--node-labels`). */
  labels?: Readonly<Record<string, string>>;
  /** `--register-with-taints`. */
  taints?: readonly Taint[];
  /** Capacity, e.g. `{ cpu: "4", memory: "8Gi" }`; allocatable is the same. */
  capacity?: Readonly<Record<string, string>>;
}

type ConditionSpec = Omit<NodeCondition, "lastHeartbeatTime" | "lastTransitionTime">;

const healthyConditions: readonly ConditionSpec[] = [
  {
    type: "MemoryPressure",
    status: "False",
    reason: "KubeletHasSufficientMemory",
    message: "kubelet has sufficient memory available",
  },
  {
    type: "DiskPressure",
    status: "False",
    reason: "KubeletHasNoDiskPressure",
    message: "kubelet has no disk pressure",
  },
  {
    type: "PIDPressure",
    status: "False",
    reason: "KubeletHasSufficientPID",
    message: "kubelet has sufficient PID available",
  },
  { type: "Ready", status: "True", reason: readyConditionReason, message: readyConditionMessage },
];

function nodeLabels(identity: NodeIdentity): Record<string, string> {
  // `--node-labels` are applied last and may override the defaults, as the kubelet does.
  return {
    [hostnameLabel]: identity.nodeName,
    [osLabel]: nodeOs,
    [archLabel]: nodeArch,
    [betaOsLabel]: nodeOs,
    [betaArchLabel]: nodeArch,
    ...(identity.zone === undefined ? {} : { [zoneLabel]: identity.zone }),
    ...(identity.region === undefined ? {} : { [regionLabel]: identity.region }),
    ...identity.labels,
  };
}

/** The Node a kubelet creates when it registers (status filled by the setters below). */
export function initialNode(identity: NodeIdentity, nowMs: number): Node {
  const node: Node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: identity.nodeName,
      labels: nodeLabels(identity),
      annotations: { [controllerManagedAttachDetachAnnotation]: "true" },
    },
    spec: identity.taints === undefined || identity.taints.length === 0 ? {} : { taints: [...identity.taints] },
  };
  return { ...node, status: setNodeStatus(undefined, identity, nowMs) };
}

/**
 * The registration reconcile of an existing Node (reconcileCMADAnnotationWithExistingNode and
 * updateDefaultLabels): the annotation and the default labels are put back if they were changed.
 * Returns undefined when nothing needs to change.
 */
export function reconcileExistingNode(existing: Node, identity: NodeIdentity): Node | undefined {
  const wantedLabels = nodeLabels({ ...identity, labels: {} });
  const labels = { ...existing.metadata?.labels };
  const annotations = { ...existing.metadata?.annotations };
  let changed = false;
  for (const [key, value] of Object.entries(wantedLabels)) {
    if (labels[key] !== value) {
      labels[key] = value;
      changed = true;
    }
  }
  if (annotations[controllerManagedAttachDetachAnnotation] !== "true") {
    annotations[controllerManagedAttachDetachAnnotation] = "true";
    changed = true;
  }
  if (!changed) return undefined;
  return { ...existing, metadata: { ...existing.metadata, labels, annotations } };
}

function conditionsAt(previous: readonly NodeCondition[], nowMs: number): NodeCondition[] {
  const now = formatRfc3339(nowMs);
  const owned = new Set(healthyConditions.map((condition) => condition.type));
  const foreign = previous.filter((condition) => !owned.has(condition.type));
  const ours = healthyConditions.map((spec): NodeCondition => {
    const old = previous.find((condition) => condition.type === spec.type);
    const transitioned = old === undefined || old.status !== spec.status;
    return {
      ...spec,
      lastHeartbeatTime: now,
      lastTransitionTime: transitioned ? now : (old.lastTransitionTime ?? now),
    };
  });
  return [...ours, ...foreign];
}

/**
 * The node status the setters produce from `previous` (the stored one). `volumesInUse` is handled
 * separately (it may only be written once the volume manager has synced its states).
 */
export function setNodeStatus(previous: NodeStatus | undefined, identity: NodeIdentity, nowMs: number): NodeStatus {
  const capacity = { ...(identity.capacity ?? defaultNodeCapacity) };
  return {
    ...previous,
    capacity,
    allocatable: { ...capacity },
    conditions: conditionsAt(previous?.conditions ?? [], nowMs),
    addresses: [
      { type: "InternalIP", address: identity.address },
      { type: "Hostname", address: identity.nodeName },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: identity.kubeletPort ?? kubeletPort } },
    nodeInfo: {
      machineID: identity.nodeName,
      systemUUID: identity.nodeName,
      bootID: identity.nodeName,
      kernelVersion: simulatedKernelVersion,
      osImage: simulatedOsImage,
      containerRuntimeVersion,
      kubeletVersion,
      kubeProxyVersion: kubeletVersion,
      operatingSystem: nodeOs,
      architecture: nodeArch,
    },
  };
}

/** nodeStatusHasChanged: equal apart from the conditions' heartbeat times. */
export function nodeStatusHasChanged(original: NodeStatus | undefined, updated: NodeStatus): boolean {
  const withoutHeartbeats = (status: NodeStatus | undefined): NodeStatus => ({
    ...status,
    conditions: (status?.conditions ?? []).map(({ lastHeartbeatTime: _ignored, ...rest }) => rest),
  });
  return !jsonEqual(withoutHeartbeats(original), withoutHeartbeats(updated));
}
