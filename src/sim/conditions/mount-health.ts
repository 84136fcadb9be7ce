/**
 * Whether a pod's volume is mounted on a node and usable, as an operator finds out with
 * `findmnt` and `ls` on the node: healthy (mounted, its root can be listed), corrupted (mounted,
 * but access fails: a dead FUSE daemon's ENOTCONN, a stale NFS handle, a fenced RBD image's EIO, a
 * hard NFS mount whose server does not answer), or absent.
 */
import type { Pod } from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import type { MountInfo } from "../../host/host.ts";
import { isHostError } from "../../host/host.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { defaultKubeletRootDir, podVolumesDir } from "../../volume/paths.ts";
import type { MountHealth } from "./ast.ts";

/** The kubelet names a claim's volume directory after the PV it is bound to, other volumes after themselves. */
async function volumeDirName(cluster: Cluster, pod: Pod, volumeName: string): Promise<string | undefined> {
  const volume = pod.spec?.volumes?.find((candidate) => candidate.name === volumeName);
  if (volume === undefined) return undefined;
  const claimName = volume.persistentVolumeClaim?.claimName;
  if (claimName === undefined) return volumeName;
  const claim = await cluster.tryGet("PersistentVolumeClaim", pod.metadata?.namespace ?? "", claimName);
  return claim?.spec?.volumeName;
}

/** A hard NFS mount of a server that does not answer blocks every access; it must not be touched. */
function isHungNfsMount(cluster: Cluster, mount: MountInfo): boolean {
  if (!mount.fsType.startsWith("nfs")) return false;
  const server = mount.source.split(":")[0] ?? "";
  return cluster.world.nfsServer(server)?.reachable === false;
}

async function isAccessible(host: SimHost, path: string): Promise<boolean> {
  try {
    await host.stat(path);
    await host.readdir(path);
    return true;
  } catch (error) {
    if (isHostError(error)) return false;
    throw error;
  }
}

/**
 * Where `pod`'s volume `volumeName` is mounted on node `nodeName` (the kubelet's per-pod mount), or
 * undefined when it is not, or the node is off; throws when the node does not exist.
 */
export async function podVolumeMount(
  cluster: Cluster,
  pod: Pod,
  volumeName: string,
  nodeName: string,
): Promise<MountInfo | undefined> {
  const host = cluster.world.node(nodeName);
  const uid = pod.metadata?.uid;
  const dirName = await volumeDirName(cluster, pod, volumeName);
  if (!host.poweredOn || uid === undefined || dirName === undefined) return undefined;
  const volumesDir = `${podVolumesDir(defaultKubeletRootDir, uid)}/`;
  // `<volumes dir>/<escaped plugin>/<dir name>`: exactly two levels below the pod's volumes; a CSI
  // volume is published one level deeper, at `kubernetes.io~csi/<dir name>/mount`.
  return (await host.mountInfo()).find((candidate) => {
    if (!candidate.mountPoint.startsWith(volumesDir)) return false;
    const [plugin, name, ...deeper] = candidate.mountPoint.slice(volumesDir.length).split("/");
    const csiTarget = plugin === "kubernetes.io~csi" && deeper.length === 1 && deeper[0] === "mount";
    return plugin !== undefined && name === dirName && (deeper.length === 0 || csiTarget);
  });
}

/** The health of `pod`'s volume `volumeName` on node `nodeName`; throws when the node does not exist. */
export async function mountHealthOf(
  cluster: Cluster,
  pod: Pod,
  volumeName: string,
  nodeName: string,
): Promise<MountHealth> {
  const host = cluster.world.node(nodeName);
  const mount = await podVolumeMount(cluster, pod, volumeName, nodeName);
  if (mount === undefined) return "absent";
  if (isHungNfsMount(cluster, mount)) return "corrupted";
  return (await isAccessible(host, mount.mountPoint)) ? "healthy" : "corrupted";
}
