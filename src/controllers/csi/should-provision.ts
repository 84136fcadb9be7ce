/**
 * Which claims this provisioner works on (the library's shouldProvision): unbound claims the PV
 * controller handed to this driver through `volume.kubernetes.io/storage-provisioner` (or its beta
 * form). A WaitForFirstConsumer claim waits for the scheduler's `volume.kubernetes.io/selected-node`;
 * the annotation may also be removed again to send the claim back to the scheduler.
 */
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import { claimClassName } from "../../api/storage/pv-helpers.ts";
import { annBetaStorageProvisioner, annSelectedNode, annStorageProvisioner } from "./constants.ts";
import { storageClassNotFoundMessage } from "./provisioner-events.ts";
import type { ProvisionerState } from "./provisioner-state.ts";

const waitForFirstConsumer = "WaitForFirstConsumer";

/** True when this driver should provision `claim` now; throws when the claim's class is missing. */
export function shouldProvision(state: ProvisionerState, claim: PersistentVolumeClaim): boolean {
  if (claim.spec?.volumeName) return false;
  const annotations = claim.metadata?.annotations ?? {};
  const provisioner = annotations[annStorageProvisioner] ?? annotations[annBetaStorageProvisioner];
  if (provisioner !== state.driverName) return false;
  const className = claimClassName(claim);
  const storageClass = state.classes.get("", className);
  if (storageClass === undefined) throw new Error(storageClassNotFoundMessage(className));
  if (storageClass.volumeBindingMode !== waitForFirstConsumer) return true;
  return Boolean(annotations[annSelectedNode]);
}
