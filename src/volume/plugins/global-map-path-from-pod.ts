/**
 * Kubernetes' FindGlobalMapPathUUIDFromPod: after a kubelet restart, a block volume's global map
 * path is found again from the device file bind-mounted for the pod
 * (`plugins/<plugin>/volumeDevices/<volume id>/<pod uid>`), because the pod's own directory only
 * holds a link named after the spec, not the volume id the plugin needs.
 */
import { pluginVolumeDevicesDir } from "../paths.ts";
import type { NodeVolumeContext } from "../volume-host.ts";

/**
 * The `<volume id>` of the global map path holding `podUID`'s device file, or undefined when none
 * is mounted. With several candidates, the one whose device the pod's link (`mapPath`) points at.
 */
export async function globalMapVolumeIdFromPod(
  node: NodeVolumeContext,
  pluginName: string,
  podUID: string,
  mapPath: string,
): Promise<string | undefined> {
  const prefix = `${pluginVolumeDevicesDir(node.rootDir, pluginName)}/`;
  const suffix = `/${podUID}`;
  const candidates = (await node.host.mountInfo()).filter(
    (mount) => mount.mountPoint.startsWith(prefix) && mount.mountPoint.endsWith(suffix),
  );
  let chosen = candidates[0];
  if (candidates.length > 1) {
    const linkTarget = await node.host.readlink(mapPath);
    chosen = candidates.find((mount) => linkTarget.endsWith(mount.root));
  }
  return chosen?.mountPoint.slice(prefix.length, -suffix.length);
}
