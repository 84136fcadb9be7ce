/**
 * The key a volume operation runs under (spec §4.2) and the rule that decides whether two keys
 * collide (spec §4.3). An empty field is a wildcard: `(vol, "", "")` covers every pod and node of
 * the volume, which is how an RWO attach serialises cluster-wide and how MountVolume of an
 * attachable volume serialises with UnmountDevice on the node.
 */
import type { OperationName } from "./operation-names.ts";

export const emptyVolumeName = "";
export const emptyPodName = "";
export const emptyNodeName = "";

/** What an operation acts on; two targets collide by the rule of `keysCollide`. */
export interface OperationTarget {
  /** Unique volume name (`<plugin>/<volume>`); empty keys never collide (run concurrently). */
  readonly volumeName: string;
  /** Unique pod name (the pod UID), or empty for a per-volume or per-node operation. */
  readonly podName: string;
  /** Node name, or empty when the operation is not tied to one node. */
  readonly nodeName: string;
}

export interface OperationKey extends OperationTarget {
  readonly operationName: OperationName;
}

export function operationKey(
  volumeName: string,
  podName: string,
  nodeName: string,
  operationName: OperationName,
): OperationKey {
  return { volumeName, podName, nodeName, operationName };
}

/**
 * Go's `%+v` of Kubernetes' operationKey struct, which holds the volume, pod and node but not the
 * operation's name: `{volumeName:kubernetes.io/csi/d^h podName: nodeName:node-1}`, as kubelet logs show.
 */
export function formatOperationKey(key: OperationTarget): string {
  return `{volumeName:${key.volumeName} podName:${key.podName} nodeName:${key.nodeName}}`;
}

/** True when both keys name the same volume, pod, node and operation (the backoff record's identity). */
export function sameOperation(a: OperationKey, b: OperationKey): boolean {
  return (
    a.volumeName === b.volumeName &&
    a.podName === b.podName &&
    a.nodeName === b.nodeName &&
    a.operationName === b.operationName
  );
}

/**
 * Whether a pending operation under `pending` forbids starting one under `candidate` (the operation
 * name plays no part): same volume, and pod and node each equal or empty on either side. So
 * `(vol,"","")` matches everything for the volume; `(vol,pod,"")` matches `(vol,pod,"")` and
 * `(vol,"",*)`; `(vol,"",node)` matches `(vol,"",node)` and `(vol,pod,node)`.
 */
export function keysCollide(pending: OperationTarget, candidate: OperationTarget): boolean {
  if (candidate.volumeName === emptyVolumeName) return false;
  if (pending.volumeName !== candidate.volumeName) return false;
  const podsMatch =
    pending.podName === emptyPodName || candidate.podName === emptyPodName || pending.podName === candidate.podName;
  if (!podsMatch) return false;
  return (
    pending.nodeName === emptyNodeName ||
    candidate.nodeName === emptyNodeName ||
    pending.nodeName === candidate.nodeName
  );
}
