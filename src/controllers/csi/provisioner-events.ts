/**
 * external-provisioner's events, word for word (sig-storage-lib-external-provisioner, spec §1.9 and
 * §6.2). They are recorded with the provisioner's identity `<driver>_<host>_<uuid>` as
 * `source.component`.
 */
import { goQuote } from "../../runtime/go-quote.ts";

export const ProvisionerEventReason = {
  provisioning: "Provisioning",
  provisioningSucceeded: "ProvisioningSucceeded",
  provisioningFailed: "ProvisioningFailed",
  volumeFailedDelete: "VolumeFailedDelete",
} as const;

export function provisioningMessage(claimKey: string): string {
  return `External provisioner is provisioning volume for claim ${goQuote(claimKey)}`;
}

export function provisioningSucceededMessage(volumeName: string): string {
  return `Successfully provisioned volume ${volumeName}`;
}

export function provisioningFailedMessage(className: string, error: string): string {
  return `failed to provision volume with StorageClass ${goQuote(className)}: ${error}`;
}

/** What a lister's NotFound says about a StorageClass (`storageclass.storage.k8s.io "fast" not found`). */
export function storageClassNotFoundMessage(className: string): string {
  return `storageclass.storage.k8s.io ${goQuote(className)} not found`;
}

/** What a NotFound for the selected node says (`nodes "node-a" not found`). */
export function nodeNotFoundMessage(nodeName: string): string {
  return `nodes ${goQuote(nodeName)} not found`;
}
