/**
 * The PV controller's state as its debug endpoint shows it
 * (`/debug/controllers/persistentvolume-controller` on the API server): the claims it still has
 * to bind, with the provisioning operation of each (running, or failed and backing off until
 * when), and every long operation it runs (provision, delete, recycle).
 */
import {
  debugStateApiVersion,
  type PendingClaimDebugState,
  type PersistentVolumeControllerDebugState,
} from "../../api/debug/debug-state.ts";
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import { formatRfc3339Micro } from "../../runtime/clock.ts";
import type { OperationMap } from "./operation-map.ts";
import { provisionOperationName } from "./provision.ts";

interface PvControllerDebugSources {
  nowMs: number;
  claims: Iterable<PersistentVolumeClaim>;
  operations: OperationMap;
}

export function persistentVolumeControllerDebugState(
  sources: PvControllerDebugSources,
): PersistentVolumeControllerDebugState {
  const operations = sources.operations.debugState();
  const pendingClaims: PendingClaimDebugState[] = [];
  for (const claim of sources.claims) {
    if (claim.status?.phase === "Bound") continue;
    const provisioning = provisionOperationName(claim);
    pendingClaims.push({
      namespace: claim.metadata?.namespace ?? "",
      name: claim.metadata?.name ?? "",
      uid: claim.metadata?.uid ?? "",
      storageClassName: claim.spec?.storageClassName ?? "",
      volumeName: claim.spec?.volumeName ?? "",
      operations: operations.filter((operation) => operation.operationName === provisioning),
    });
  }
  return {
    apiVersion: debugStateApiVersion,
    kind: "PersistentVolumeControllerState",
    time: formatRfc3339Micro(sources.nowMs),
    pendingClaims,
    operations,
  };
}
