/**
 * What a failed provisioning attempt leaves behind (the library's ProvisioningState), which decides
 * what happens next:
 *
 * - Finished: the driver is known not to be working on the volume; retry with backoff.
 * - InBackground: the driver may still be creating it (timeout, Unavailable, Aborted …): keep
 *   retrying with the same name even if the claim is deleted, so a volume the driver finishes is
 *   not leaked (the PV it gets is then Released and deleted).
 * - NoChange: nothing new was learnt (e.g. a Secret could not be read).
 * - Reschedule: the selected node cannot host the volume; remove `selected-node` so the
 *   scheduler chooses again.
 */
import { CsiError } from "../../csi/grpc/errors.ts";

export type ProvisioningState = "Finished" | "InBackground" | "NoChange" | "Reschedule";

/** An error that says which state provisioning is left in. */
export class ProvisioningError extends Error {
  constructor(
    readonly state: ProvisioningState,
    message: string,
  ) {
    super(message);
    this.name = "ProvisioningError";
  }
}

const mayStillBeRunningCodes: ReadonlySet<string> = new Set(["Canceled", "DeadlineExceeded", "Unavailable", "Aborted"]);

/**
 * external-provisioner's checkError for a failed CreateVolume. Rescheduling makes sense only for a
 * topology-aware driver with a selected node, and only when the driver said it lacks room there.
 */
export function stateAfterCreateVolumeError(error: unknown, mayReschedule: boolean): ProvisioningState {
  if (!(error instanceof CsiError)) return "InBackground";
  if (error.code === "ResourceExhausted") return mayReschedule ? "Reschedule" : "InBackground";
  if (mayStillBeRunningCodes.has(error.code)) return "InBackground";
  return "Finished";
}
