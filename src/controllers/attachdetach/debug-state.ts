/**
 * The attach/detach controller's state as its debug endpoint shows it
 * (`/debug/controllers/attachdetach-controller` on the API server): which pods want which volumes
 * on which nodes, what is attached where, the force-detach timers — a volume no pod on a node
 * wants any more is force-detached maxWaitForUnmountDuration (6 min) after that was first seen,
 * if the node is not Ready by then — and the attach/detach operations with their backoff.
 */
import {
  type AttachDetachActualVolume,
  type AttachDetachControllerDebugState,
  type AttachDetachDesiredVolume,
  debugStateApiVersion,
} from "../../api/debug/debug-state.ts";
import { formatRfc3339Micro } from "../../runtime/clock.ts";
import { formatGoDuration } from "../../runtime/duration.ts";
import type { OperationExecutor } from "../../volume/operationexecutor/operation-executor.ts";
import type { ActualStateOfWorld } from "./cache/actual-state-of-world.ts";
import type { DesiredStateOfWorld } from "./cache/desired-state-of-world.ts";

interface AttachDetachDebugSources {
  nowMs: number;
  dsw: DesiredStateOfWorld;
  asw: ActualStateOfWorld;
  executor: OperationExecutor;
  maxWaitForUnmountMs: number;
  disableForceDetachOnTimeout: boolean;
}

function desiredVolumes(dsw: DesiredStateOfWorld): AttachDetachDesiredVolume[] {
  return dsw.getVolumesToAttach().map((volume) => ({
    nodeName: volume.nodeName,
    volumeName: volume.volumeName,
    multiAttachErrorReported: volume.multiAttachErrorReported,
    pods: volume.scheduledPods.map((pod) => ({
      uid: pod.metadata?.uid ?? "",
      namespace: pod.metadata?.namespace ?? "",
      name: pod.metadata?.name ?? "",
    })),
  }));
}

function actualVolumes(sources: AttachDetachDebugSources): AttachDetachActualVolume[] {
  const { asw, maxWaitForUnmountMs, disableForceDetachOnTimeout } = sources;
  return asw.getAttachedVolumes().map((attached) => {
    const entry: AttachDetachActualVolume = {
      volumeName: attached.volumeName,
      nodeName: attached.nodeName,
      attachState: attached.attachState,
      mountedByNode: attached.mountedByNode,
    };
    const requestedMs = asw.detachRequestedTimeMs(attached.volumeName, attached.nodeName);
    if (requestedMs === 0) return entry;
    entry.detachRequestedTime = formatRfc3339Micro(requestedMs);
    if (!disableForceDetachOnTimeout) entry.forceDetachTime = formatRfc3339Micro(requestedMs + maxWaitForUnmountMs);
    return entry;
  });
}

export function attachDetachDebugState(sources: AttachDetachDebugSources): AttachDetachControllerDebugState {
  return {
    apiVersion: debugStateApiVersion,
    kind: "AttachDetachControllerState",
    time: formatRfc3339Micro(sources.nowMs),
    ...(sources.disableForceDetachOnTimeout
      ? {}
      : { maxWaitForUnmountDuration: formatGoDuration(sources.maxWaitForUnmountMs) }),
    desiredStateOfWorld: desiredVolumes(sources.dsw),
    actualStateOfWorld: actualVolumes(sources),
    operations: sources.executor.pendingOperations.debugState(),
  };
}
