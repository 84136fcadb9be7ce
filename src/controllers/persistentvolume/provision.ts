/**
 * Dynamic provisioning (spec §1.9): provisionClaim starts `provision-<ns>/<name>[<uid>]` in the
 * background. An in-tree provisioner creates the asset and the controller creates its PV, already
 * bound to the claim (the next claim sync completes the binding); an external provisioner is only
 * told, through the claim's storage-provisioner annotation, and waited for.
 */
import { clone } from "../../api/client/copy.ts";
import { isNotFound } from "../../api/errors.ts";
import type { Node, PersistentVolumeClaim, StorageClass } from "../../api/objects.ts";
import { claimClassName } from "../../api/storage/pv-helpers.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import {
  annBetaStorageProvisioner,
  annotationOf,
  annSelectedNode,
  annStorageProvisioner,
  claimKeyOf,
  hasAnnotation,
} from "./annotations.ts";
import type { PvControllerState } from "./controller-state.ts";
import {
  dataSourceUnsupportedMessage,
  EventReason,
  externalClaimNotSavedMessage,
  externalProvisioningMessage,
  mountOptionsUnsupportedMessage,
  nodeNotFoundMessage,
  provisioningFailedMessage,
  storageClassNotFoundMessage,
  targetNodeMissingMessage,
} from "./events.ts";
import { newProvisionedVolume, saveProvisionedVolume } from "./provisioned-volume.ts";
import type { ProvisionedVolume, Provisioner } from "./provisioner.ts";

/** `pvc-<claim uid>`: deterministic, so a repeated provisioning finds the PV of an earlier one. */
function provisionedVolumeName(claim: PersistentVolumeClaim): string {
  return `pvc-${claim.metadata?.uid ?? ""}`;
}

export function provisionOperationName(claim: PersistentVolumeClaim): string {
  return `provision-${claimKeyOf(claim)}[${claim.metadata?.uid ?? ""}]`;
}

type ProvisionPlan =
  | { kind: "in-tree"; provisioner: Provisioner; storageClass: StorageClass }
  | { kind: "external"; storageClass: StorageClass }
  | { kind: "failed"; error: string };

function planProvisioning(state: PvControllerState, claim: PersistentVolumeClaim): ProvisionPlan {
  const className = claimClassName(claim);
  const storageClass = state.classLister.get("", className);
  if (storageClass === undefined) return { kind: "failed", error: storageClassNotFoundMessage(className) };
  const lookup = state.provisioners.lookup(storageClass.provisioner);
  if (lookup.kind === "unsupported") return { kind: "failed", error: lookup.error };
  if (lookup.kind === "external") return { kind: "external", storageClass };
  return { kind: "in-tree", provisioner: lookup.provisioner, storageClass };
}

/**
 * Starts provisioning for an unbound claim with a class. A claim whose class cannot be provisioned
 * gets a ProvisioningFailed event and is tried again on its next sync.
 */
export function provisionClaim(state: PvControllerState, claim: PersistentVolumeClaim): void {
  const plan = planProvisioning(state, claim);
  if (plan.kind === "failed") {
    state.recorder.event(claim, "Warning", EventReason.provisioningFailed, plan.error);
    return;
  }
  const operationName = provisionOperationName(claim);
  const refusal = state.operations.run(operationName, () =>
    plan.kind === "external"
      ? provisionClaimExternally(state, claim, plan.storageClass)
      : provisionClaimInTree(state, claim, plan.provisioner, plan.storageClass),
  );
  if (refusal !== undefined) state.logger.debug("provisioning not started", { operationName, why: refusal.message });
}

/**
 * Writes the storage-provisioner annotations (current and beta) unless already there. Unlike the
 * other claim writes this one retries a Conflict at once: only annotations change, and until an
 * admission plugin adds pvc-protection at creation, the protection controller's write races with it.
 */
async function setClaimProvisioner(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  provisionerName: string,
): Promise<PersistentVolumeClaim> {
  if (annotationOf(claim, annStorageProvisioner) === provisionerName) return claim;
  const written = await state.client.persistentVolumeClaims.mutate(
    claim.metadata?.namespace ?? "",
    claim.metadata?.name ?? "",
    (draft) => {
      if (draft.metadata?.uid !== claim.metadata?.uid) {
        throw new Error(`claim ${claimKeyOf(claim)} was deleted and created again; provisioning stops`);
      }
      draft.metadata = {
        ...draft.metadata,
        annotations: {
          ...draft.metadata?.annotations,
          [annBetaStorageProvisioner]: provisionerName,
          [annStorageProvisioner]: provisionerName,
        },
      };
    },
  );
  state.claims.storeIfNotOlder(written);
  return written;
}

async function provisionClaimExternally(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
): Promise<void> {
  const provisionerName = storageClass.provisioner;
  let annotated: PersistentVolumeClaim;
  try {
    annotated = await setClaimProvisioner(state, claim, provisionerName);
  } catch (error) {
    state.recorder.event(
      claim,
      "Warning",
      EventReason.provisioningFailed,
      externalClaimNotSavedMessage(errorMessage(error)),
    );
    throw error;
  }
  const message = externalProvisioningMessage(provisionerName);
  state.recorder.event(annotated, "Normal", EventReason.externalProvisioning, message);
}

async function provisionClaimInTree(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  provisioner: Provisioner,
  storageClass: StorageClass,
): Promise<void> {
  checkNoDataSource(state, claim, provisioner);
  const annotated = await setClaimProvisioner(state, claim, storageClass.provisioner);
  const pvName = provisionedVolumeName(annotated);
  if (await volumeExists(state, pvName)) return;
  checkMountOptions(state, annotated, provisioner, storageClass);
  const selectedNode = selectedNodeOf(state, annotated);
  let provisioned: ProvisionedVolume;
  try {
    provisioned = await provisioner.provision({
      pvName,
      claim: annotated,
      storageClass,
      ...(selectedNode === undefined ? {} : { selectedNode }),
    });
  } catch (error) {
    await rescheduleProvisioning(state, annotated);
    const message = provisioningFailedMessage(storageClass.metadata?.name ?? "", errorMessage(error));
    state.recorder.event(annotated, "Warning", EventReason.provisioningFailed, message);
    throw error;
  }
  const volume = newProvisionedVolume({ claim: annotated, pvName, provisioner, storageClass, provisioned });
  await saveProvisionedVolume(state, annotated, provisioner, volume);
}

/** A live read, not the cache: an earlier operation may have created the PV a moment ago. */
async function volumeExists(state: PvControllerState, pvName: string): Promise<boolean> {
  try {
    await state.client.persistentVolumes.get("", pvName);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** Only CSI drivers (external here) can populate a volume from a snapshot or another claim. */
function checkNoDataSource(state: PvControllerState, claim: PersistentVolumeClaim, provisioner: Provisioner): void {
  if (claim.spec?.dataSource == null) return;
  const message = dataSourceUnsupportedMessage(provisioner.name);
  state.recorder.event(claim, "Warning", EventReason.provisioningFailed, message);
  throw new Error(message);
}

function checkMountOptions(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  provisioner: Provisioner,
  storageClass: StorageClass,
): void {
  const mountOptions = storageClass.mountOptions ?? [];
  if (provisioner.supportsMountOptions || mountOptions.length === 0) return;
  const message = mountOptionsUnsupportedMessage(storageClass.metadata?.name ?? "", mountOptions);
  state.recorder.event(claim, "Warning", EventReason.provisioningFailed, message);
  throw new Error(`provisioner "${provisioner.name}" doesn't support mount options`);
}

/** The node the scheduler selected, or undefined when none was; throws when it names an unknown node. */
function selectedNodeOf(state: PvControllerState, claim: PersistentVolumeClaim): Node | undefined {
  const nodeName = annotationOf(claim, annSelectedNode);
  if (nodeName === undefined) return undefined;
  const node = state.nodeLister.get("", nodeName);
  if (node !== undefined) return node;
  const error = nodeNotFoundMessage(nodeName);
  state.recorder.event(claim, "Warning", EventReason.provisioningFailed, targetNodeMissingMessage(error));
  throw new Error(error);
}

/**
 * After a failed in-tree provisioning for a node the scheduler chose, forget the choice so the
 * scheduler can choose again (perhaps a node where provisioning works).
 */
async function rescheduleProvisioning(state: PvControllerState, claim: PersistentVolumeClaim): Promise<void> {
  if (!hasAnnotation(claim, annSelectedNode)) return;
  const draft = clone(claim);
  const annotations = { ...draft.metadata?.annotations };
  delete annotations[annSelectedNode];
  draft.metadata = { ...draft.metadata, annotations };
  try {
    state.claims.storeIfNotOlder(await state.client.persistentVolumeClaims.update(draft));
  } catch (error) {
    state.logger.info("could not remove the selected-node annotation; the next sync retries", {
      claim: claimKeyOf(claim),
      error: errorMessage(error),
    });
  }
}
