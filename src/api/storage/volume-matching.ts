/**
 * Whether a PersistentVolume can serve a claim: component-helpers' FindMatchingVolume, which both the
 * PV controller (no node) and the scheduler's volume binding (a node) call, and the PV controller's
 * checkVolumeSatisfyClaim for a claim that names its volume (spec §1.4 B and §1.6).
 *
 * - A volume pre-bound to the claim (its claimRef names it) wins at once — on the scheduler path
 *   only if its node affinity admits the node, otherwise there is no match on that node.
 * - Without a node and with delayed binding (WaitForFirstConsumer) nothing else is considered: the
 *   scheduler binds unbound volumes.
 * - Other candidates are unclaimed, not being deleted, at least as large as the request, of the
 *   claim's volumeMode and VolumeAttributesClass, phase Available, selected by the claim's label
 *   selector and of its class; on the scheduler path they must also admit the node and offer every
 *   access mode the claim asks for (the PV controller's index already sorted volumes by mode).
 * - The smallest candidate wins, the first one met among equals.
 */

import { errorMessage } from "../../runtime/error-message.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import type { Node, PersistentVolume, PersistentVolumeClaim } from "../objects.ts";
import type { Quantity } from "../quantity.ts";
import { labelMatcherFromSelector } from "../selectors/labels.ts";
import {
  attributesClassMismatch,
  claimClassName,
  isVolumeBoundToClaim,
  offersAccessModes,
  requestedStorage,
  volumeCapacity,
  volumeClassName,
  volumeFitsNode,
  volumeModeMismatch,
} from "./pv-helpers.ts";

interface VolumeMatchOptions {
  /** The scheduler path: the node the pod would run on. */
  node?: Node;
  /** Names of volumes already chosen for the pod's other claims in this scheduling attempt. */
  excluded?: ReadonlySet<string>;
  /** The claim's class binds WaitForFirstConsumer; without a node only a pre-bound volume is returned. */
  delayBinding?: boolean;
}

function selectorMatcher(claim: PersistentVolumeClaim): ((volume: PersistentVolume) => boolean) | undefined {
  const selector = claim.spec?.selector;
  if (selector == null) return undefined;
  try {
    const matcher = labelMatcherFromSelector(selector);
    return (volume) => matcher.matches(volume.metadata?.labels);
  } catch (error) {
    const claimKey = `${claim.metadata?.namespace ?? ""}/${claim.metadata?.name ?? ""}`;
    const why = errorMessage(error);
    throw new Error(`error creating internal label selector for claim: ${claimKey}: ${why}`);
  }
}

/** The checks every candidate must pass, pre-bound or not, cheapest first. */
function fitsClaimShape(claim: PersistentVolumeClaim, volume: PersistentVolume, requested: Quantity): boolean {
  if (volume.spec?.claimRef != null && !isVolumeBoundToClaim(volume, claim)) return false;
  if (volumeCapacity(volume).compare(requested) < 0) return false;
  if (volumeModeMismatch(claim, volume)) return false;
  if (volume.metadata?.deletionTimestamp != null) return false;
  return !attributesClassMismatch(claim, volume);
}

/**
 * The volume `claim` should take among `volumes` (see the file comment), or undefined. Throws when
 * the claim's label selector is invalid.
 */
export function findMatchingVolume(
  claim: PersistentVolumeClaim,
  volumes: Iterable<PersistentVolume>,
  options: VolumeMatchOptions = {},
): PersistentVolume | undefined {
  const { node, excluded, delayBinding = false } = options;
  const requested = requestedStorage(claim);
  const requestedClass = claimClassName(claim);
  const matchesSelector = selectorMatcher(claim);
  let smallest: PersistentVolume | undefined;
  for (const volume of volumes) {
    if (excluded?.has(volume.metadata?.name ?? "")) continue;
    if (!fitsClaimShape(claim, volume, requested)) continue;
    const fitsNode = node === undefined || volumeFitsNode(volume, node);
    if (isVolumeBoundToClaim(volume, claim)) return fitsNode ? volume : undefined;
    if (node === undefined && delayBinding) continue;
    if (volume.status?.phase !== "Available") continue;
    if (matchesSelector !== undefined && !matchesSelector(volume)) continue;
    if (volumeClassName(volume) !== requestedClass || !fitsNode) continue;
    if (node !== undefined && !offersAccessModes(claim, volume)) continue;
    if (smallest === undefined || volumeCapacity(smallest).compare(volumeCapacity(volume)) > 0) smallest = volume;
  }
  return smallest;
}

/**
 * checkVolumeSatisfyClaim: why `volume`, which `claim` asked for by name, cannot serve it, or
 * undefined when it can. The texts are what the VolumeMismatch event shows after
 * "Cannot bind to requested volume ...: ".
 */
export function volumeUnsuitableReason(volume: PersistentVolume, claim: PersistentVolumeClaim): string | undefined {
  if (volume.metadata?.deletionTimestamp != null) {
    return `the volume is marked for deletion ${goQuote(volume.metadata?.name ?? "")}`;
  }
  if (volumeCapacity(volume).toBytes() < requestedStorage(claim).toBytes()) return "requested PV is too small";
  if (volumeClassName(volume) !== claimClassName(claim)) return "storageClassName does not match";
  if (volumeModeMismatch(claim, volume)) return "incompatible volumeMode";
  if (!offersAccessModes(claim, volume)) return "incompatible accessMode";
  return undefined;
}
