/**
 * The kubelet volume manager's state as its debug endpoint shows it (`/debug/volumemanager` on the
 * kubelet's server; `/api/v1/nodes/<node>/proxy/debug/volumemanager` through the API server): the
 * desired and actual states of the world (uncertain and reconstructed mounts included), every
 * operation running or backing off ("no retries permitted until"), the CSI drivers registered, and
 * the mounts an unmount found busy with the processes that hold them, where the host can name them.
 */
import {
  debugStateApiVersion,
  type KubeletActualVolume,
  type KubeletDesiredVolume,
  type KubeletVolumeManagerDebugState,
  type MountHolderDebugState,
  type OperationDebugState,
} from "../../api/debug/debug-state.ts";
import type { Host } from "../../host/host.ts";
import { formatRfc3339Micro } from "../../runtime/clock.ts";
import { OperationName } from "../../volume/operationexecutor/operation-names.ts";
import { podVolumeDir } from "../../volume/paths.ts";
import type { KubeletVolumeManager } from "./kubelet-volume-manager.ts";

interface KubeletDebugSources {
  nowMs: number;
  nodeName: string;
  rootDir: string;
  host: Host;
  volumeManager: KubeletVolumeManager;
  registeredCsiDrivers: string[];
}

/** An unmount refused because the mount is in use: umount's "target is busy", or EBUSY. */
const busyError = /target is busy|device or resource busy|EBUSY/i;

function desiredVolumes(volumeManager: KubeletVolumeManager): KubeletDesiredVolume[] {
  const byName = new Map<string, KubeletDesiredVolume>();
  for (const volume of volumeManager.dsw.getVolumesToMount()) {
    let entry = byName.get(volume.volumeName);
    if (entry === undefined) {
      entry = {
        volumeName: volume.volumeName,
        pluginIsAttachable: volume.pluginIsAttachable,
        reportedInUse: volume.reportedInUse,
        pods: [],
      };
      byName.set(volume.volumeName, entry);
    }
    entry.pods.push({
      podUID: volume.podName,
      namespace: volume.pod.metadata?.namespace ?? "",
      name: volume.pod.metadata?.name ?? "",
      outerVolumeSpecName: volume.outerVolumeSpecName,
    });
  }
  return [...byName.values()];
}

function actualVolumes(volumeManager: KubeletVolumeManager): KubeletActualVolume[] {
  const { asw } = volumeManager;
  const byName = new Map<string, KubeletActualVolume>();
  for (const volume of asw.getAttachedVolumes()) {
    byName.set(volume.volumeName, {
      volumeName: volume.volumeName,
      pluginName: volume.pluginName,
      deviceMountState: volume.deviceMountState,
      devicePath: volume.devicePath,
      deviceMountPath: volume.deviceMountPath,
      pods: [],
    });
  }
  for (const mount of asw.getAllMountedVolumes()) {
    const reconstructed = asw.reconstructedPods(mount.volumeName).has(mount.podName);
    byName.get(mount.volumeName)?.pods.push({
      podUID: mount.podUID,
      outerVolumeSpecName: mount.outerVolumeSpecName,
      volumeMountState: mount.volumeMountState,
      remountRequired: asw.podExistsInVolume(mount.podName, mount.volumeName).kind === "remountRequired",
      reconstructed,
    });
  }
  return [...byName.values()];
}

/** The mount point an operation that failed on a busy mount was unmounting. */
function busyMountPoint(sources: KubeletDebugSources, operation: OperationDebugState): string | undefined {
  if (operation.lastError === undefined || !busyError.test(operation.lastError)) return undefined;
  const { asw } = sources.volumeManager;
  if (operation.operationName === OperationName.unmountDevice) {
    return asw.getAttachedVolume(operation.volumeName)?.deviceMountPath;
  }
  if (operation.operationName !== OperationName.unmount) return undefined;
  const mount = asw
    .getPossiblyMountedVolumesForPod(operation.podName)
    .find((candidate) => candidate.volumeName === operation.volumeName);
  if (mount === undefined) return undefined;
  return podVolumeDir(sources.rootDir, mount.podUID, mount.pluginName, mount.innerVolumeSpecName);
}

async function busyMounts(
  sources: KubeletDebugSources,
  operations: readonly OperationDebugState[],
): Promise<MountHolderDebugState[]> {
  const found: MountHolderDebugState[] = [];
  for (const operation of operations) {
    const mountPoint = busyMountPoint(sources, operation);
    if (mountPoint === undefined) continue;
    const processes = (await sources.host.mountHolders?.(mountPoint)) ?? [];
    found.push({ mountPoint, processes: processes.map(({ pid, command }) => ({ pid, command })) });
  }
  return found;
}

export async function kubeletVolumeManagerDebugState(
  sources: KubeletDebugSources,
): Promise<KubeletVolumeManagerDebugState> {
  const operations = sources.volumeManager.executor.pendingOperations.debugState();
  return {
    apiVersion: debugStateApiVersion,
    kind: "KubeletVolumeManagerState",
    nodeName: sources.nodeName,
    time: formatRfc3339Micro(sources.nowMs),
    desiredStateOfWorld: desiredVolumes(sources.volumeManager),
    actualStateOfWorld: actualVolumes(sources.volumeManager),
    operations,
    registeredCsiDrivers: sources.registeredCsiDrivers,
    busyMounts: await busyMounts(sources, operations),
  };
}
