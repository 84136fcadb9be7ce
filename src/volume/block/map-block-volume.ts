/**
 * Mapping a raw block volume into a pod and back (Kubernetes' volumeutil.MapBlockVolume /
 * UnmapBlockVolume), in the order of spec §5.10. The kubelet's operation executor calls these
 * around the plugin's own steps (WaitForAttach, SetUpDevice, MapPodDevice; TearDownDevice).
 *
 * Map:   1. bind-mount the device onto `<globalMapPath>/<podUID>`
 *        2. symlink `pods/<uid>/volumeDevices/<plugin>/<spec>` → the device
 *        3. hold `<globalMapPath>/<podUID>` open with a loop device
 * Unmap: the same steps undone in reverse (loop device, pod link, global bind mount).
 */
import { posix } from "node:path";
import { isHostError } from "../../host/host.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { attachFileDevice, detachFileDevice } from "./loop-device.ts";
import {
  type BlockPathContext,
  getDeviceBindMountRefs,
  mapDevice,
  removeMapPath,
  unmapDevice,
} from "./volume-path-handler.ts";

export interface BlockVolumePaths {
  /** The volume's global map directory (one bind-mounted device file per pod). */
  globalMapPath: string;
  /** The pod's `volumeDevices/<plugin>` directory. */
  podDeviceMapPath: string;
  /** The link name inside it: the spec name. */
  volumeMapName: string;
  podUID: string;
}

export async function mapBlockVolume(
  context: BlockPathContext,
  devicePath: string,
  paths: BlockVolumePaths,
): Promise<void> {
  const { globalMapPath, podDeviceMapPath, volumeMapName, podUID } = paths;
  try {
    await mapDevice(context, devicePath, globalMapPath, podUID, true);
  } catch (err) {
    throw new Error(
      `blkUtil.MapDevice failed. devicePath: ${devicePath}, globalMapPath:${globalMapPath}, podUID: ${podUID}, bindMount: true: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  try {
    await mapDevice(context, devicePath, podDeviceMapPath, volumeMapName, false);
  } catch (err) {
    throw new Error(
      `blkUtil.MapDevice failed. devicePath: ${devicePath}, podVolumeMapPath:${podDeviceMapPath}, volumeMapName: ${volumeMapName}, bindMount: false: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  try {
    await attachFileDevice(context.host, posix.join(globalMapPath, podUID), context.logger);
  } catch (err) {
    throw new Error(
      `blkUtil.AttachFileDevice failed. globalMapPath:${globalMapPath}, podUID: ${podUID}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
}

export async function unmapBlockVolume(context: BlockPathContext, paths: BlockVolumePaths): Promise<void> {
  const { globalMapPath, podDeviceMapPath, volumeMapName, podUID } = paths;
  try {
    await detachFileDevice(context.host, posix.join(globalMapPath, podUID), context.logger);
  } catch (err) {
    throw new Error(
      `blkUtil.DetachFileDevice failed. globalUnmapPath:${globalMapPath}, podUID: ${podUID}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  try {
    await unmapDevice(context, podDeviceMapPath, volumeMapName, false);
  } catch (err) {
    throw new Error(
      `blkUtil.DetachFileDevice failed. podDeviceUnmapPath:${podDeviceMapPath}, volumeMapName: ${volumeMapName}, bindMount: false: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  try {
    await unmapDevice(context, globalMapPath, podUID, true);
  } catch (err) {
    throw new Error(
      `blkUtil.DetachFileDevice failed. globalUnmapPath:${globalMapPath}, volumeMapName: ${podUID}, bindMount: true: ${errorMessage(err)}`,
      { cause: err },
    );
  }
}

/**
 * The device-level unmap (UnmapDevice): refused while any pod still maps the device; otherwise the
 * plugin releases the device (`tearDownDevice`) and the global map directory is removed.
 */
export async function unmapDeviceForAllPods(
  context: BlockPathContext,
  globalMapPath: string,
  devicePath: string,
  tearDownDevice: (() => Promise<void>) | undefined,
): Promise<void> {
  const refs = await getDeviceBindMountRefsOrNone(context, globalMapPath);
  if (refs.length > 0) {
    throw new Error(`the device "${devicePath}" is still referenced from other Pods [${refs.join(" ")}]`);
  }
  if (tearDownDevice !== undefined) await tearDownDevice();
  await removeMapPath(context.host, globalMapPath);
}

async function getDeviceBindMountRefsOrNone(context: BlockPathContext, globalMapPath: string): Promise<string[]> {
  try {
    return await getDeviceBindMountRefs(context.host, globalMapPath);
  } catch (err) {
    if (isHostError(err, "ENOENT")) return [];
    throw err;
  }
}
