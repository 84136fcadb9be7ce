/**
 * Kubernetes' removeMountDir (csi_util.go): once a publish target or staging directory is no
 * longer a mount point, remove it, the `vol_data.json` beside it and their parent directory. A
 * directory that is still mounted is left alone (the driver did not unmount it). The mount-point
 * check is IsLikelyNotMountPoint, so a corrupted mount (a dead FUSE daemon: ENOTCONN) makes this
 * fail — the pod then stays Terminating until someone unmounts it (spec §8.3).
 */
import { posix } from "node:path";
import { type Host, isHostError } from "../../../host/host.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { csiVolumeDataFileName } from "../../paths.ts";
import type { NodeVolumeContext } from "../../volume-host.ts";
import { isLikelyMountPoint } from "../pod-mount.ts";
import { csiMessagePrefix } from "./csi-constants.ts";

/** Go's os.Remove: unlink a file, rmdir a directory; absent is fine here. */
async function removeIfPresent(host: Host, path: string): Promise<void> {
  try {
    const stat = await host.lstat(path);
    if (stat.type === "directory") await host.rmdir(path);
    else await host.unlink(path);
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw err;
  }
}

export async function removeMountDir(node: NodeVolumeContext, mountPath: string): Promise<void> {
  if (await isLikelyMountPoint(node, mountPath)) return;
  const { host } = node;
  const volumePath = posix.dirname(mountPath);
  const dataFile = posix.join(volumePath, csiVolumeDataFileName);
  const steps: [string, string][] = [
    [mountPath, "failed to remove dir"],
    [dataFile, "failed to delete volume data file"],
    [volumePath, "failed to delete volume path"],
  ];
  for (const [path, failure] of steps) {
    try {
      await removeIfPresent(host, path);
    } catch (err) {
      throw new Error(`${csiMessagePrefix}${failure} [${path}]: ${errorMessage(err)}`, { cause: err });
    }
  }
}
