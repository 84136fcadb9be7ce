/**
 * The file-level work of raw block volumes (Kubernetes' volumepathhandler): a device is made
 * visible to pods in two ways — bind-mounted onto a file in the volume's global map directory (one
 * file per pod, so references can be counted) and symlinked from the pod's `volumeDevices`
 * directory — and held open by a loop device so it cannot be silently swapped for another disk.
 */
import { posix } from "node:path";
import { type FileStat, type Host, isHostError } from "../../host/host.ts";
import type { Mounter } from "../../host/mount/mounter.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { removeAllOneFilesystem } from "../util/remove-all.ts";
import type { VolumeLogger } from "../volume-host.ts";

/** Global map and pod device directories are private to the kubelet and its group. */
const mapPathDirMode = 0o750;
/** The placeholder file a device is bind-mounted onto. */
const bindMountFileMode = 0o750;

export interface BlockPathContext {
  host: Host;
  mounter: Mounter;
  logger: VolumeLogger;
}

function requireMapArguments(devicePath: string, mapPath: string): void {
  if (devicePath === "") throw new Error("failed to map device to map path. devicePath is empty");
  if (mapPath === "") throw new Error("failed to map device to map path. mapPath is empty");
  if (!posix.isAbsolute(mapPath)) throw new Error(`the map path should be absolute: map path: ${mapPath}`);
}

/**
 * Makes `devicePath` appear as `<mapPath>/<linkName>`: bind-mounted onto a file when `bindMount`
 * (the global map path, counted per pod), a symlink otherwise (the pod's device path).
 */
export async function mapDevice(
  context: BlockPathContext,
  devicePath: string,
  mapPath: string,
  linkName: string,
  bindMount: boolean,
): Promise<void> {
  requireMapArguments(devicePath, mapPath);
  await context.host.mkdir(mapPath, mapPathDirMode, { recursive: true });
  const linkPath = posix.join(mapPath, linkName);
  if (bindMount) await mapBindMountDevice(context, devicePath, linkPath);
  else await mapSymlinkDevice(context.host, devicePath, linkPath);
}

async function mapBindMountDevice(context: BlockPathContext, devicePath: string, linkPath: string): Promise<void> {
  const existing = await statOrUndefined(context.host, linkPath);
  if (existing === undefined) {
    await context.host.writeFile(linkPath, new Uint8Array(0), bindMountFileMode);
  } else if (existing.type === "blockDevice" || existing.type === "charDevice") {
    context.logger.warning(`Warning: Map skipped because bind mount already exist on the path: ${linkPath}`);
    return;
  } else {
    context.logger.warning(`Warning: file ${linkPath} is already exist but not mounted, skip creating file`);
  }
  try {
    // A device file needs no helper daemon, so no systemd scope.
    await context.mounter.mount(devicePath, linkPath, "", ["bind"], { withSystemd: false });
  } catch (err) {
    throw new Error(`failed to bind mount devicePath: ${devicePath} to linkPath ${linkPath}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

/** Replaces whatever is at `linkPath`: a link left from before a reboot may point at a stale device. */
async function mapSymlinkDevice(host: Host, devicePath: string, linkPath: string): Promise<void> {
  try {
    await host.unlink(linkPath);
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw new Error(`failed to remove file ${linkPath}: ${(err as Error).message}`);
  }
  await host.symlink(devicePath, linkPath);
}

/** Undoes mapDevice; a mapping that is already gone is a success with a warning. */
export async function unmapDevice(
  context: BlockPathContext,
  mapPath: string,
  linkName: string,
  bindMount: boolean,
): Promise<void> {
  if (mapPath === "") throw new Error("failed to unmap device from map path. mapPath is empty");
  const linkPath = posix.join(mapPath, linkName);
  if (bindMount) await unmapBindMountDevice(context, linkPath);
  else await unmapSymlinkDevice(context, linkPath);
}

async function unmapBindMountDevice(context: BlockPathContext, linkPath: string): Promise<void> {
  if (!(await isDeviceBindMountExist(context.host, linkPath))) {
    context.logger.warning(`Warning: Unmap skipped because bind mount does not exist on the path: ${linkPath}`);
    await removeFileIfPresent(context.host, linkPath);
    return;
  }
  try {
    await context.mounter.unmount(linkPath);
  } catch (err) {
    throw new Error(`failed to unmount linkPath ${linkPath}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  await removeFileIfPresent(context.host, linkPath);
}

async function unmapSymlinkDevice(context: BlockPathContext, linkPath: string): Promise<void> {
  if (!(await isSymlinkExist(context.host, linkPath))) {
    context.logger.warning(`Warning: Unmap skipped because symlink does not exist on the path: ${linkPath}`);
    return;
  }
  await context.host.unlink(linkPath);
}

/** Removes the global map directory of a volume once no pod maps it. */
export async function removeMapPath(host: Host, mapPath: string): Promise<void> {
  if (mapPath === "") throw new Error("failed to remove map path. mapPath is empty");
  try {
    await removeAllOneFilesystem(host, mapPath);
  } catch (err) {
    throw new Error(`failed to remove directory ${mapPath}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

/** True when `path` is a symlink; false when absent or something else. */
async function isSymlinkExist(host: Host, path: string): Promise<boolean> {
  try {
    return (await host.lstat(path)).type === "symlink";
  } catch (err) {
    if (isHostError(err, "ENOENT")) return false;
    throw new Error(`failed to Lstat file ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** True when `path` shows a device: the bind mount of a device onto the placeholder file is in place. */
async function isDeviceBindMountExist(host: Host, path: string): Promise<boolean> {
  try {
    const type = (await host.lstat(path)).type;
    return type === "blockDevice" || type === "charDevice";
  } catch (err) {
    if (isHostError(err, "ENOENT")) return false;
    throw new Error(`failed to Lstat file ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** The per-pod device files under a global map path: the pods still using the device. */
export async function getDeviceBindMountRefs(host: Host, mapPath: string): Promise<string[]> {
  const refs: string[] = [];
  for (const name of await host.readdir(mapPath)) {
    const path = posix.join(mapPath, name);
    if (await isDeviceBindMountExist(host, path)) refs.push(path);
  }
  return refs;
}

async function statOrUndefined(host: Host, path: string): Promise<FileStat | undefined> {
  try {
    return await host.stat(path);
  } catch (err) {
    if (isHostError(err, "ENOENT")) return undefined;
    throw new Error(`failed to stat file ${path}: ${(err as Error).message}`, { cause: err });
  }
}

async function removeFileIfPresent(host: Host, path: string): Promise<void> {
  try {
    await host.unlink(path);
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw new Error(`failed to remove file ${path}: ${(err as Error).message}`);
  }
}
