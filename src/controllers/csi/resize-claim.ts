/**
 * The external-resizer's expandAndRecover (kubernetes-csi/external-resizer expand_and_recover.go):
 * which size to expand a bound claim to — the new request, or the size an expansion already under
 * way was started with — and what to record before and after ControllerExpandVolume. It is where
 * RecoverVolumeExpansionFailure lives: a claim whose expansion failed as infeasible
 * (ControllerResizeInfeasible) is expanded again to a lowered request, which the API server
 * accepts down to just above `status.capacity`.
 */

import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import type { Quantity } from "../../api/quantity.ts";
import {
  type ClaimResizeStatus,
  claimAllocatedSize,
  claimCapacity,
  claimRequestSize,
  claimResizeStatus,
  hasCondition,
  volumeCapacity,
} from "../../api/storage/claim-resize-status.ts";

/** What to do with a claim: nothing, or expand to `newSize` (writing the in-progress status first when `markInProgress`). */
export type ResizePlan = { kind: "none" } | { kind: "expand"; newSize: Quantity; markInProgress: boolean };

export interface ResizeHistory {
  /** The claim's last ControllerExpandVolume ended with a final error. */
  finalError: boolean;
  /** The driver can expand on the controller (EXPAND_VOLUME); without it the resize is node-only. */
  controllerExpansion: boolean;
}

const nothing: ResizePlan = { kind: "none" };

/** pvcNeedResize: a bound claim asking for more than it has. */
export function claimNeedsResize(claim: PersistentVolumeClaim): boolean {
  if (claim.status?.phase !== "Bound" || !claim.spec?.volumeName) return false;
  const request = claimRequestSize(claim);
  if (request === undefined) return false;
  const capacity = claimCapacity(claim);
  return capacity === undefined || request.compare(capacity) > 0;
}

export function planResize(claim: PersistentVolumeClaim, volume: PersistentVolume, history: ResizeHistory): ResizePlan {
  const request = claimRequestSize(claim);
  const volumeSize = volumeCapacity(volume);
  if (request === undefined || volumeSize === undefined) return nothing;
  const allocated = claimAllocatedSize(claim);
  const status = claimResizeStatus(claim);
  const newSize =
    volumeSize.compare(request) < 0
      ? sizeWhileVolumeSmaller(status, request, allocated, history)
      : sizeOnceVolumeGrew(claim, status, request, allocated, history);
  if (newSize === undefined) return nothing;
  if (status === "NodeResizePending" || status === "NodeResizeInProgress") {
    if (volumeSize.compare(newSize) >= 0) return nothing;
  }
  const same = allocated !== undefined && allocated.compare(newSize) === 0;
  // Expanding again to the size that was infeasible waits for the user to change the request
  // (external-resizer retries it only slowly).
  if (same && status === "ControllerResizeInfeasible") return nothing;
  return { kind: "expand", newSize, markInProgress: !same };
}

/** The PV is smaller than asked for: expand, but let an expansion already under way finish first. */
function sizeWhileVolumeSmaller(
  status: ClaimResizeStatus | undefined,
  request: Quantity,
  allocated: Quantity | undefined,
  history: ResizeHistory,
): Quantity {
  switch (status) {
    case "NodeResizeInfeasible":
    case "NodeResizePending":
    case "NodeResizeInProgress":
      return allocated ?? request;
    case "ControllerResizeInProgress":
      // An uncertain failure may still be growing the volume to the old size; a final one may not.
      return history.finalError ? request : (allocated ?? request);
    default:
      return request;
  }
}

/** The PV already has the requested size: finish recording it, or leave it to kubelet. */
function sizeOnceVolumeGrew(
  claim: PersistentVolumeClaim,
  status: ClaimResizeStatus | undefined,
  request: Quantity,
  allocated: Quantity | undefined,
  history: ResizeHistory,
): Quantity | undefined {
  switch (status) {
    case "NodeResizeInProgress":
    case "NodeResizePending":
      return undefined;
    case "NodeResizeInfeasible":
      return history.controllerExpansion && allocated !== undefined ? allocated : request;
    case "ControllerResizeInProgress":
    case "ControllerResizeInfeasible":
      return allocated ?? request;
    default:
      if (allocated !== undefined) return allocated;
      return hasCondition(claim, "FileSystemResizePending") ? undefined : request;
  }
}
