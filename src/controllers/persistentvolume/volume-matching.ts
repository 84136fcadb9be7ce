/**
 * Whether a volume fits a claim (component-helpers' FindMatchingVolume and the PV controller's
 * checkVolumeSatisfyClaim, spec §1.4 B and §1.6). The PV controller path has no node: node affinity
 * is the scheduler's business.
 */
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { parseQuantity, Quantity } from "../../api/quantity.ts";
import { labelMatcherFromSelector } from "../../api/selectors/labels.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import { containsAllAccessModes } from "./access-modes.ts";
import { claimClassName, claimKeyOf, isVolumeBoundToClaim, volumeClassName, volumeNameOf } from "./annotations.ts";
import { errorText } from "./events.ts";

const storageResource = "storage";
const filesystemMode = "Filesystem";
const zeroQuantity = Quantity.fromBytes(0n);

function quantityOf(resources: Readonly<Record<string, unknown>> | undefined): Quantity {
  const value = resources?.[storageResource];
  return value === undefined || value === null ? zeroQuantity : parseQuantity(String(value));
}

export function requestedStorage(claim: PersistentVolumeClaim): Quantity {
  return quantityOf(claim.spec?.resources?.requests);
}

export function volumeCapacity(volume: PersistentVolume): Quantity {
  return quantityOf(volume.spec?.capacity);
}

/** Kubernetes treats a missing volumeMode as Filesystem on both sides. */
export function volumeModeMismatch(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return (claim.spec?.volumeMode ?? filesystemMode) !== (volume.spec?.volumeMode ?? filesystemMode);
}

function attributesClassMismatch(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return (claim.spec?.volumeAttributesClassName ?? "") !== (volume.spec?.volumeAttributesClassName ?? "");
}

/** Checks shared by the index search and by a claim that names its volume, cheapest first. */
function fitsClaimShape(claim: PersistentVolumeClaim, volume: PersistentVolume, requested: Quantity): boolean {
  if (volumeCapacity(volume).compare(requested) < 0) return false;
  if (volumeModeMismatch(claim, volume)) return false;
  if (attributesClassMismatch(claim, volume)) return false;
  return volume.metadata?.deletionTimestamp == null;
}

function selectorMatcher(claim: PersistentVolumeClaim): ((volume: PersistentVolume) => boolean) | undefined {
  const selector = claim.spec?.selector;
  if (selector == null) return undefined;
  try {
    const matcher = labelMatcherFromSelector(selector);
    return (volume) => matcher.matches(volume.metadata?.labels);
  } catch (error) {
    throw new Error(`error creating internal label selector for claim: ${claimKeyOf(claim)}: ${errorText(error)}`);
  }
}

/**
 * The volume `claim` should bind to among `volumes`: one pre-bound to the claim at once, otherwise
 * the smallest Available volume that fits, matches the selector and has the claim's class. With
 * `delayBinding` only pre-bound volumes are considered: the scheduler binds the others.
 * Throws when the claim's selector is invalid.
 */
export function findMatchingVolume(
  claim: PersistentVolumeClaim,
  volumes: Iterable<PersistentVolume>,
  delayBinding: boolean,
): PersistentVolume | undefined {
  const requested = requestedStorage(claim);
  const requestedClass = claimClassName(claim);
  const matchesSelector = selectorMatcher(claim);
  let smallest: PersistentVolume | undefined;
  for (const volume of volumes) {
    if (volume.spec?.claimRef != null && !isVolumeBoundToClaim(volume, claim)) continue;
    if (!fitsClaimShape(claim, volume, requested)) continue;
    if (isVolumeBoundToClaim(volume, claim)) return volume;
    if (delayBinding) continue;
    if (volume.status?.phase !== "Available") continue;
    if (matchesSelector !== undefined && !matchesSelector(volume)) continue;
    if (volumeClassName(volume) !== requestedClass) continue;
    if (smallest === undefined || volumeCapacity(smallest).compare(volumeCapacity(volume)) > 0) smallest = volume;
  }
  return smallest;
}

/**
 * Why `volume`, which `claim` asked for by name, cannot serve it, or undefined when it can. The texts
 * are what the VolumeMismatch event shows after "Cannot bind to requested volume ...: ".
 */
export function volumeUnsuitableReason(volume: PersistentVolume, claim: PersistentVolumeClaim): string | undefined {
  if (volume.metadata?.deletionTimestamp != null) {
    return `the volume is marked for deletion ${goQuote(volumeNameOf(volume))}`;
  }
  if (volumeCapacity(volume).toBytes() < requestedStorage(claim).toBytes()) return "requested PV is too small";
  if (volumeClassName(volume) !== claimClassName(claim)) return "storageClassName does not match";
  if (volumeModeMismatch(claim, volume)) return "incompatible volumeMode";
  if (!containsAllAccessModes(volume.spec?.accessModes ?? [], claim.spec?.accessModes ?? [])) {
    return "incompatible accessMode";
  }
  return undefined;
}
