/**
 * The PV controller's event reasons and messages, word for word as Kubernetes emits them
 * (pkg/controller/volume/events/event.go and pv_controller.go; spec §1 and §6.2). Go's `%q` is
 * `goQuote`, `%s`/`%v` the plain value.
 */
import { goQuote } from "../../runtime/go-quote.ts";

/** The component every event of the PV controller carries as `source.component`. */
export const pvControllerComponent = "persistentvolume-controller";

export const EventReason = {
  failedBinding: "FailedBinding",
  volumeMismatch: "VolumeMismatch",
  waitForFirstConsumer: "WaitForFirstConsumer",
  waitForPodScheduled: "WaitForPodScheduled",
  externalProvisioning: "ExternalProvisioning",
  provisioningFailed: "ProvisioningFailed",
  provisioningCleanupFailed: "ProvisioningCleanupFailed",
  provisioningSucceeded: "ProvisioningSucceeded",
  claimLost: "ClaimLost",
  claimMisbound: "ClaimMisbound",
  volumeDelete: "VolumeDelete",
  volumeFailedDelete: "VolumeFailedDelete",
  volumeFailedRecycle: "VolumeFailedRecycle",
  volumeRecycled: "VolumeRecycled",
  volumeUnknownReclaimPolicy: "VolumeUnknownReclaimPolicy",
} as const;

export const noVolumesAndNoClassMessage = "no persistent volumes available for this claim and no storage class is set";
export const waitForFirstConsumerMessage = "waiting for first consumer to be created before binding";
export const claimLostReferenceMessage =
  "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!";
export const claimLostVolumeMessage = "Bound claim has lost its PersistentVolume. Data on the volume is lost!";
export const claimMisboundMessage = "Two claims are bound to the same volume, this one is bound incorrectly";
export const unknownReclaimPolicyMessage = "Volume has unrecognized PersistentVolumeReclaimPolicy";
export const noRecyclerMessage = "No recycler plugin found for the volume!";
export const volumeRecycledMessage = "Volume recycled";

/** The WaitForPodScheduled message: one pod by name, several joined by commas. */
export function waitForPodsScheduledMessage(podNames: readonly string[]): string {
  return podNames.length === 1
    ? `waiting for pod ${podNames[0]} to be scheduled`
    : `waiting for pods ${podNames.join(",")} to be scheduled`;
}

/** VolumeMismatch on a claim that asked for a volume by name; `reason` is a checkVolumeSatisfyClaim text. */
export function cannotBindRequestedVolumeMessage(volumeName: string, reason: string): string {
  return `Cannot bind to requested volume ${goQuote(volumeName)}: ${reason}`;
}

export function volumeAlreadyBoundMessage(volumeName: string): string {
  return `volume ${goQuote(volumeName)} already bound to a different claim.`;
}

/** VolumeMismatch on the volume when a claim bound to it asks for another volumeMode. */
export function volumeModeMismatchOnVolumeMessage(claimName: string): string {
  return `Cannot bind PersistentVolume to requested PersistentVolumeClaim ${goQuote(claimName)} due to incompatible volumeMode.`;
}

/** VolumeMismatch on the claim when the volume bound to it has another volumeMode. */
export function volumeModeMismatchOnClaimMessage(volumeName: string): string {
  return `Cannot bind PersistentVolume ${goQuote(volumeName)} to requested PersistentVolumeClaim due to incompatible volumeMode.`;
}

export function externalProvisioningMessage(provisionerName: string): string {
  return (
    `Waiting for a volume to be created either by the external provisioner '${provisionerName}' ` +
    "or manually by the system administrator. If volume creation is delayed, please verify that " +
    "the provisioner is running and correctly registered."
  );
}

export function provisioningSucceededMessage(volumeName: string, provisionerName: string): string {
  return `Successfully provisioned volume ${volumeName} using ${provisionerName}`;
}

export function provisioningFailedMessage(className: string, error: string): string {
  return `Failed to provision volume with StorageClass ${goQuote(className)}: ${error}`;
}

export function provisionedVolumeNotSavedMessage(claimKey: string, error: string): string {
  return `Error creating provisioned PV object for claim ${claimKey}: ${error}. Deleting the volume.`;
}

export function provisioningCleanupFailedMessage(claimKey: string, error: string): string {
  return `Error cleaning provisioned volume for claim ${claimKey}: ${error}. Please delete manually.`;
}

export function mountOptionsUnsupportedMessage(className: string, mountOptions: readonly string[]): string {
  return `Mount options are not supported by the provisioner but StorageClass ${goQuote(className)} has mount options [${mountOptions.join(" ")}]`;
}

export function dataSourceUnsupportedMessage(pluginName: string): string {
  return `plugin ${goQuote(pluginName)} is not a CSI plugin. Only CSI plugin can provision a claim with a datasource`;
}

export function targetNodeMissingMessage(error: string): string {
  return `Failed to get target node: ${error}`;
}

export function externalClaimNotSavedMessage(error: string): string {
  return `Error saving claim: ${error}`;
}

export function volumeUsedByPodsMessage(podKeys: readonly string[]): string {
  return `Volume is used by pods: ${podKeys.join(",")}`;
}

export function recycleFailedMessage(error: string): string {
  return `Recycle failed: ${error}`;
}

/** What a lister's NotFound says about a StorageClass (`storageclass.storage.k8s.io "fast" not found`). */
export function storageClassNotFoundMessage(className: string): string {
  return `storageclass.storage.k8s.io ${goQuote(className)} not found`;
}

/** What a lister's NotFound says about a Node. */
export function nodeNotFoundMessage(nodeName: string): string {
  return `node ${goQuote(nodeName)} not found`;
}
