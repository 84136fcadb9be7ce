/**
 * Which PersistentVolume a WaitForFirstConsumer claim could take on a given node: the scheduler
 * path of component-helpers' FindMatchingVolume. The PV controller has its own copy of the claim
 * path (controllers never import each other); both follow the same rules:
 *
 * - a volume pre-bound to this claim (claimRef names it) wins at once — or, when its node affinity
 *   excludes the node, means "no match on this node";
 * - otherwise candidates are unclaimed, phase Available, not being deleted, of the claim's class,
 *   selected by the claim's label selector, at least as large as the request, of the same volume
 *   mode, offering every access mode the claim asks for, and allowed on the node;
 * - the smallest candidate wins (the first one listed among equals).
 */
import type { Node, PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { parseQuantity, Quantity } from "../../api/quantity.ts";
import { matchesNodeSelectorTerms } from "../../api/scheduling/node-selector.ts";
import { labelMatcherFromSelector } from "../../api/selectors/labels.ts";

/** The beta annotation still wins over `storageClassName`, as GetPersistentVolume(Claim)Class reads it. */
export const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

const zeroBytes = Quantity.fromBytes(0n);

export function claimClassName(claim: PersistentVolumeClaim): string {
  return claim.metadata?.annotations?.[betaStorageClassAnnotation] ?? claim.spec?.storageClassName ?? "";
}

export function volumeClassName(volume: PersistentVolume): string {
  return volume.metadata?.annotations?.[betaStorageClassAnnotation] ?? volume.spec?.storageClassName ?? "";
}

/** A quantity as stored; validation guarantees it parses, and an absent one is zero. */
function storageQuantity(text: string | undefined): Quantity {
  return text === undefined ? zeroBytes : parseQuantity(text);
}

export function requestedStorage(claim: PersistentVolumeClaim): Quantity {
  return storageQuantity(claim.spec?.resources?.requests?.storage);
}

function volumeCapacity(volume: PersistentVolume): Quantity {
  return storageQuantity(volume.spec?.capacity?.storage);
}

/** IsVolumeBoundToClaim: the claimRef names this claim, and its uid (when set) is this claim's. */
export function isVolumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  if (ref === undefined) return false;
  if (ref.name !== claim.metadata?.name || ref.namespace !== claim.metadata?.namespace) return false;
  return !ref.uid || ref.uid === claim.metadata?.uid;
}

/** CheckNodeAffinity: a volume without required node affinity is usable everywhere. */
export function volumeFitsNode(volume: PersistentVolume, node: Node): boolean {
  const required = volume.spec?.nodeAffinity?.required;
  return required === undefined || matchesNodeSelectorTerms(node, required.nodeSelectorTerms);
}

function volumeModeMismatch(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return (claim.spec?.volumeMode ?? "Filesystem") !== (volume.spec?.volumeMode ?? "Filesystem");
}

function offersAccessModes(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  const offered = volume.spec?.accessModes ?? [];
  return (claim.spec?.accessModes ?? []).every((mode) => offered.includes(mode));
}

/** The checks every candidate must pass, pre-bound or not. */
function basicFit(claim: PersistentVolumeClaim, volume: PersistentVolume, request: Quantity): boolean {
  if (volume.spec?.claimRef !== undefined && !isVolumeBoundToClaim(volume, claim)) return false;
  if (volumeCapacity(volume).compare(request) < 0) return false;
  if (volumeModeMismatch(claim, volume)) return false;
  return !volume.metadata?.deletionTimestamp;
}

/**
 * The volume `claim` should take on `node`, or undefined. `excluded` holds volumes already chosen
 * for the pod's other claims in this attempt.
 */
export function findMatchingVolume(
  claim: PersistentVolumeClaim,
  volumes: readonly PersistentVolume[],
  node: Node,
  excluded: ReadonlySet<string>,
): PersistentVolume | undefined {
  const request = requestedStorage(claim);
  const className = claimClassName(claim);
  const selector = claim.spec?.selector === undefined ? undefined : labelMatcherFromSelector(claim.spec.selector);
  let smallest: PersistentVolume | undefined;
  for (const volume of volumes) {
    if (excluded.has(volume.metadata?.name ?? "") || !basicFit(claim, volume, request)) continue;
    const fitsNode = volumeFitsNode(volume, node);
    if (isVolumeBoundToClaim(volume, claim)) return fitsNode ? volume : undefined;
    if (volume.status?.phase !== "Available") continue;
    if (selector !== undefined && !selector.matches(volume.metadata?.labels)) continue;
    if (volumeClassName(volume) !== className || !fitsNode || !offersAccessModes(claim, volume)) continue;
    if (smallest === undefined || volumeCapacity(smallest).compare(volumeCapacity(volume)) > 0) smallest = volume;
  }
  return smallest;
}
