/**
 * The fault catalogue: every fault a scenario, `kvol sim explore` or `kvol fault` can inject, by name,
 * in the order docs/faults.md lists them.
 */
import { apiLatency, controllerManagerRestart } from "./control-plane-faults.ts";
import { csiCallError, csiCallSlow, csiDeadlineExceeded, csiNodePluginRestart } from "./csi-faults.ts";
import {
  diskAttachError,
  diskAttachSlow,
  diskDetachError,
  diskDetachSlow,
  diskExpandError,
  diskFormatFailure,
} from "./disk-faults.ts";
import { onlineResizeDenied } from "./expansion-faults.ts";
import type { FaultDefinition } from "./fault.ts";
import { fuseDaemonKilled, mountBusy, mountHelperMissing } from "./mount-faults.ts";
import { nfsServerDown, nfsStaleHandle } from "./nfs-faults.ts";
import { kubeletRestart, nodeCrash, nodePartition, nodePowerOff } from "./node-faults.ts";
import { snapshotStuckNotReady } from "./snapshot-faults.ts";

const faults: readonly FaultDefinition[] = [
  nodePowerOff,
  nodeCrash,
  nodePartition,
  kubeletRestart,
  controllerManagerRestart,
  apiLatency,
  csiNodePluginRestart,
  mountHelperMissing,
  fuseDaemonKilled,
  mountBusy,
  nfsServerDown,
  nfsStaleHandle,
  diskAttachSlow,
  diskAttachError,
  diskDetachSlow,
  diskDetachError,
  diskExpandError,
  diskFormatFailure,
  onlineResizeDenied,
  snapshotStuckNotReady,
  csiCallError,
  csiDeadlineExceeded,
  csiCallSlow,
];

export const faultCatalogue: ReadonlyMap<string, FaultDefinition> = new Map(faults.map((fault) => [fault.name, fault]));

/** The fault called `name`; an unknown name is an Error listing the known ones. */
export function faultNamed(name: string): FaultDefinition {
  const fault = faultCatalogue.get(name);
  if (fault === undefined) {
    throw new Error(`unknown fault "${name}"; known faults: ${[...faultCatalogue.keys()].join(", ")}`);
  }
  return fault;
}
