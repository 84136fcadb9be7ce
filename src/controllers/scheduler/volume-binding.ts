/**
 * The VolumeBinding plugin's decisions (pkg/scheduler/framework/plugins/volumebinding, binder.go):
 *
 * - PreFilter sorts the pod's claims into bound, unbound Immediate and unbound WaitForFirstConsumer.
 *   A missing, lost or deleting claim, or an unbound Immediate claim (the PV controller binds those,
 *   not the scheduler), rejects the pod for every node.
 * - Filter, per node: every bound claim's volume must allow the node (`volume node affinity
 *   conflict`); every WaitForFirstConsumer claim needs either an available volume that fits the node
 *   or a StorageClass that can provision there (its provisioner is real and its allowedTopologies
 *   admit the node) — otherwise `didn't find available persistent volumes to bind`. A claim already
 *   promised to another node (`volume.kubernetes.io/selected-node`) rules this node out.
 * - Reserve (AssumePodVolumes) records the choice for the chosen node in the assume caches, so the
 *   next pod does not take the same volume; the API writes happen in the binding cycle (volume-binder.ts).
 *
 * - Storage capacity (hasEnoughCapacity): a claim to provision through a CSI driver whose CSIDriver
 *   says `storageCapacity: true` needs a CSIStorageCapacity of its class whose nodeTopology selects
 *   the node and whose maximumVolumeSize (or else capacity) covers the request — otherwise
 *   `did not have enough free storage`. A claim without a storage request, or a driver without a
 *   CSIDriver object, is not checked.
 */

import type {
  CSIDriver,
  CSIStorageCapacity,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
} from "../../api/objects.ts";
import { parseQuantity } from "../../api/quantity.ts";
import { matchesTopologySelectorTerms } from "../../api/scheduling/node-selector.ts";
import { labelMatcherFromSelector } from "../../api/selectors/labels.ts";
import { claimClassName, requestedStorage, volumeFitsNode } from "../../api/storage/pv-helpers.ts";
import { findMatchingVolume } from "../../api/storage/volume-matching.ts";
import {
  annBindCompleted,
  annBoundByController,
  annSelectedNode,
  errReasonNotEnoughSpace,
  errReasonPvNotExist,
  errReasonVolumeBindConflict,
  errReasonVolumeNodeConflict,
  errUnboundImmediateClaims,
  notSupportedProvisioner,
} from "./constants.ts";

/** What volume binding reads: the informers' objects as the assume caches show them. */
export interface VolumeView {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  volume(name: string): PersistentVolume | undefined;
  volumesOfClass(className: string): readonly PersistentVolume[];
  storageClass(name: string): StorageClass | undefined;
  csiDriver(name: string): CSIDriver | undefined;
  storageCapacities(): readonly CSIStorageCapacity[];
}

export interface PodVolumeClaims {
  bound: PersistentVolumeClaim[];
  unboundDelayBinding: PersistentVolumeClaim[];
  unboundImmediate: PersistentVolumeClaim[];
}

type PreFilterResult =
  /** The pod uses no claims: volume binding has nothing to check. */
  { kind: "none" } | { kind: "rejected"; message: string } | { kind: "claims"; claims: PodVolumeClaims };

interface StaticBinding {
  volume: PersistentVolume;
  claim: PersistentVolumeClaim;
}

/** What must happen before the pod can be bound to the node. */
export interface PodVolumes {
  /** Available volumes to reserve for claims (the scheduler writes their claimRef). */
  staticBindings: StaticBinding[];
  /** Claims to provision on the node (the scheduler writes `selected-node` on them). */
  dynamicProvisions: PersistentVolumeClaim[];
}

interface VolumeFilterResult {
  readonly reasons: readonly string[];
  readonly podVolumes: PodVolumes;
}

/** The claim name a volume refers to, and whether it is a generic ephemeral volume's claim. */
function claimReference(pod: Pod, volume: NonNullable<NonNullable<Pod["spec"]>["volumes"]>[number]) {
  if (volume.persistentVolumeClaim) return { name: volume.persistentVolumeClaim.claimName, ephemeral: false };
  if (volume.ephemeral) return { name: `${pod.metadata?.name ?? ""}-${volume.name}`, ephemeral: true };
  return undefined;
}

/** isPVCFullyBound: the claim names its volume and the PV controller finished binding it. */
export function isClaimFullyBound(claim: PersistentVolumeClaim): boolean {
  return !!claim.spec?.volumeName && claim.metadata?.annotations?.[annBindCompleted] !== undefined;
}

/** IsDelayBindingMode: a class that is missing, or does not say WaitForFirstConsumer, binds at once. */
function isDelayBinding(claim: PersistentVolumeClaim, view: VolumeView): boolean {
  const className = claimClassName(claim);
  if (className === "") return false;
  return view.storageClass(className)?.volumeBindingMode === "WaitForFirstConsumer";
}

/** podHasPVCs: the problem with one of the pod's claims that no node can fix, or undefined. */
function claimProblem(pod: Pod, view: VolumeView, found: PersistentVolumeClaim[]): string | undefined {
  const namespace = pod.metadata?.namespace ?? "";
  for (const volume of pod.spec?.volumes ?? []) {
    const reference = claimReference(pod, volume);
    if (reference === undefined) continue;
    const claim = view.claim(namespace, reference.name);
    if (claim === undefined) {
      return reference.ephemeral
        ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${reference.name}"`
        : `persistentvolumeclaim "${reference.name}" not found`;
    }
    if (claim.status?.phase === "Lost") {
      return `persistentvolumeclaim "${reference.name}" bound to non-existent persistentvolume "${claim.spec?.volumeName ?? ""}"`;
    }
    if (claim.metadata?.deletionTimestamp) return `persistentvolumeclaim "${reference.name}" is being deleted`;
    const ownedByPod = (claim.metadata?.ownerReferences ?? []).some(
      (owner) => owner.controller === true && owner.uid === pod.metadata?.uid,
    );
    if (reference.ephemeral && !ownedByPod) {
      return `PVC ${namespace}/${reference.name} was not created for pod ${namespace}/${pod.metadata?.name ?? ""} (pod is not owner)`;
    }
    found.push(claim);
  }
  return undefined;
}

/** PreFilter: the pod's claims sorted by what binding they need, or why no node can take the pod. */
export function preFilterVolumes(pod: Pod, view: VolumeView): PreFilterResult {
  const found: PersistentVolumeClaim[] = [];
  const problem = claimProblem(pod, view, found);
  if (problem !== undefined) return { kind: "rejected", message: problem };
  if (found.length === 0) return { kind: "none" };
  const claims: PodVolumeClaims = { bound: [], unboundDelayBinding: [], unboundImmediate: [] };
  for (const claim of found) {
    if (isClaimFullyBound(claim)) claims.bound.push(claim);
    // A claim pre-bound to a volume by its user is the PV controller's to finish, like an Immediate one.
    else if (isDelayBinding(claim, view) && !claim.spec?.volumeName) claims.unboundDelayBinding.push(claim);
    else claims.unboundImmediate.push(claim);
  }
  if (claims.unboundImmediate.length > 0) return { kind: "rejected", message: errUnboundImmediateClaims };
  return { kind: "claims", claims };
}

/** checkBoundClaims: the reason a bound claim's volume rules the node out, or undefined. */
function boundClaimsReason(claims: readonly PersistentVolumeClaim[], node: Node, view: VolumeView) {
  for (const claim of claims) {
    const volume = view.volume(claim.spec?.volumeName ?? "");
    if (volume === undefined) return errReasonPvNotExist;
    if (!volumeFitsNode(volume, node)) return errReasonVolumeNodeConflict;
  }
  return undefined;
}

/** capacitySufficient: maximumVolumeSize when published (it is more precise), else capacity. */
function capacitySufficient(capacity: CSIStorageCapacity, sizeBytes: bigint): boolean {
  const limit = capacity.maximumVolumeSize ?? capacity.capacity;
  if (limit === undefined) return false;
  try {
    return parseQuantity(limit).toBytes() >= sizeBytes;
  } catch (error) {
    if (error instanceof Error) return false; // validation refuses such text; an old object counts as no capacity
    throw error;
  }
}

/** hasEnoughCapacity: whether a published capacity of the class, reachable from the node, covers the claim. */
function hasEnoughCapacity(claim: PersistentVolumeClaim, storageClass: StorageClass, node: Node, view: VolumeView) {
  const request = claim.spec?.resources?.requests?.storage;
  if (request === undefined) return true;
  if (view.csiDriver(storageClass.provisioner)?.spec?.storageCapacity !== true) return true;
  const sizeBytes = requestedStorage(claim).toBytes();
  const labels = node.metadata?.labels ?? {};
  return view
    .storageCapacities()
    .some(
      (capacity) =>
        capacity.storageClassName === storageClass.metadata?.name &&
        capacitySufficient(capacity, sizeBytes) &&
        capacity.nodeTopology !== undefined &&
        labelMatcherFromSelector(capacity.nodeTopology).matches(labels),
    );
}

type ProvisionVerdict = "fits" | "cannotProvision" | "notEnoughSpace";

/** checkVolumeProvisions: whether every claim's class can provision a volume on the node, with room for it. */
function canProvisionAll(claims: readonly PersistentVolumeClaim[], node: Node, view: VolumeView): ProvisionVerdict {
  for (const claim of claims) {
    const className = claimClassName(claim);
    const storageClass = view.storageClass(className);
    if (className === "" || storageClass === undefined) {
      throw new Error(
        className === ""
          ? `no class for claim "${claim.metadata?.namespace}/${claim.metadata?.name}"`
          : `failed to find storage class "${className}"`,
      );
    }
    const provisioner = storageClass.provisioner;
    if (provisioner === "" || provisioner === notSupportedProvisioner) return "cannotProvision";
    if (!matchesTopologySelectorTerms(storageClass.allowedTopologies, node.metadata?.labels ?? {})) {
      return "cannotProvision";
    }
    if (!hasEnoughCapacity(claim, storageClass, node, view)) return "notEnoughSpace";
  }
  return "fits";
}

/** findMatchingVolumes: a volume for each claim, smallest claims first; claims left over need provisioning. */
function matchVolumes(claims: readonly PersistentVolumeClaim[], node: Node, view: VolumeView) {
  const bySize = [...claims].sort((a, b) => requestedStorage(a).compare(requestedStorage(b)));
  const chosen = new Set<string>();
  const bindings: StaticBinding[] = [];
  const unmatched: PersistentVolumeClaim[] = [];
  for (const claim of bySize) {
    const volume = findMatchingVolume(claim, view.volumesOfClass(claimClassName(claim)), { node, excluded: chosen });
    if (volume === undefined) {
      unmatched.push(claim);
      continue;
    }
    chosen.add(volume.metadata?.name ?? "");
    bindings.push({ volume, claim });
  }
  return { bindings, unmatched };
}

/** The delay-binding claims' verdict on one node (FindPodVolumes' unbound part). */
function unboundClaimsFit(claims: readonly PersistentVolumeClaim[], node: Node, view: VolumeView) {
  const podVolumes: PodVolumes = { staticBindings: [], dynamicProvisions: [] };
  const toMatch: PersistentVolumeClaim[] = [];
  const toProvision: PersistentVolumeClaim[] = [];
  for (const claim of claims) {
    const selectedNode = claim.metadata?.annotations?.[annSelectedNode];
    if (selectedNode === undefined) toMatch.push(claim);
    else if (selectedNode === node.metadata?.name) toProvision.push(claim);
    else return { fits: false, enoughSpace: true, podVolumes };
  }
  let fits = true;
  let enoughSpace = true;
  if (toMatch.length > 0) {
    const { bindings, unmatched } = matchVolumes(toMatch, node, view);
    podVolumes.staticBindings = bindings;
    fits = unmatched.length === 0;
    toProvision.push(...unmatched);
  }
  if (toProvision.length > 0) {
    const verdict = canProvisionAll(toProvision, node, view);
    // Upstream: a class without room leaves the bind verdict alone and reports the space instead.
    fits = verdict !== "cannotProvision";
    enoughSpace = verdict !== "notEnoughSpace";
    if (verdict === "fits") podVolumes.dynamicProvisions = toProvision;
  }
  return { fits, enoughSpace, podVolumes };
}

const fitsWithoutVolumeWork: VolumeFilterResult = Object.freeze({
  reasons: Object.freeze([]),
  podVolumes: { staticBindings: [], dynamicProvisions: [] },
});

/**
 * Filter: the node's volume reasons (empty when it fits) and, when it fits, what binding it needs.
 * Bound and unbound claims are both checked, so a node can fail for two reasons at once; they are
 * listed in kube-scheduler's order (node conflict, bind conflict, missing volume).
 */
export function filterVolumes(claims: PodVolumeClaims, node: Node, view: VolumeView): VolumeFilterResult {
  const boundReason = boundClaimsReason(claims.bound, node, view);
  // The common verdict (every claim bound, the node fits) is one shared object: hundreds of nodes are asked per pod.
  if (boundReason === undefined && claims.unboundDelayBinding.length === 0) return fitsWithoutVolumeWork;
  const reasons: string[] = [];
  if (boundReason === errReasonVolumeNodeConflict) reasons.push(boundReason);
  let podVolumes: PodVolumes = { staticBindings: [], dynamicProvisions: [] };
  if (claims.unboundDelayBinding.length > 0) {
    const unbound = unboundClaimsFit(claims.unboundDelayBinding, node, view);
    if (!unbound.fits) reasons.push(errReasonVolumeBindConflict);
    if (!unbound.enoughSpace) reasons.push(errReasonNotEnoughSpace);
    podVolumes = unbound.podVolumes;
  }
  if (boundReason === errReasonPvNotExist) reasons.push(boundReason);
  return { reasons, podVolumes };
}

/** True when the pod's volumes need no API write before the pod is bound. */
export function allVolumesBound(podVolumes: PodVolumes): boolean {
  return podVolumes.staticBindings.length === 0 && podVolumes.dynamicProvisions.length === 0;
}

/** GetBindVolumeToClaim: the volume with its claimRef set to the claim, marked as bound by a controller. */
export function volumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): PersistentVolume {
  const meta = claim.metadata ?? {};
  const annotations = { ...volume.metadata?.annotations };
  annotations[annBoundByController] ??= "yes";
  return {
    ...volume,
    metadata: { ...volume.metadata, annotations },
    spec: {
      ...volume.spec,
      claimRef: {
        kind: "PersistentVolumeClaim",
        namespace: meta.namespace ?? "",
        name: meta.name ?? "",
        uid: meta.uid ?? "",
        apiVersion: "v1",
        resourceVersion: meta.resourceVersion ?? "",
      },
    },
  };
}

/** The claim promised to `nodeName`, for the provisioner to create its volume there. */
export function claimWithSelectedNode(claim: PersistentVolumeClaim, nodeName: string): PersistentVolumeClaim {
  return {
    ...claim,
    metadata: { ...claim.metadata, annotations: { ...claim.metadata?.annotations, [annSelectedNode]: nodeName } },
  };
}
