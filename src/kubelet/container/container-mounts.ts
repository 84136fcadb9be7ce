/**
 * How a container sees its volumes: each `volumeMounts` entry is bound from the pod's volume path
 * on the node into the container when the container is created, as a container runtime does; a
 * `subPath` is first bind-mounted on the node by the kubelet (subpath-binds.ts), which pins the file
 * or directory it names at that moment. The bind is taken once: with the default (private) mount propagation a container
 * keeps the mount it started with, so if the node's mount is later replaced — a CSI driver
 * re-establishing a dead FUSE mount (seed 003) — the running container still sees the old, dead
 * one until it is restarted.
 */
import { posix } from "node:path";
import type { Container, VolumeMount } from "kubernetes-types/core/v1.js";
import { ERRNO_TEXT, type Host, HostError, isHostError } from "../../host/host.ts";
import { isCorruptedMnt } from "../../host/mount/mount-points.ts";

export interface ContainerMount {
  readonly volumeName: string;
  readonly containerPath: string;
  readonly hostPath: string;
  readonly readOnly: boolean;
  /** Whether later node-side mount changes reach the container (HostToContainer, Bidirectional). */
  readonly followsHostMounts: boolean;
  /** The volumeMount's mountPropagation (None when unset). */
  readonly propagation: "None" | "HostToContainer" | "Bidirectional";
  /** The node mount serving `hostPath` when the container started; undefined when it was a plain directory. */
  readonly mountIdAtStart: number | undefined;
}

/** Binds a subPath source on the node for one volume mount of the container (subpath-binds.ts). */
export interface SubpathBinder {
  /** `volumeName`: the pod's volume (outer) name; returns the node path the container gets. */
  bind(volumeName: string, mountIndex: number, source: string): Promise<string>;
}

/** The runtime could not create the container (its wording follows Docker's daemon errors). */
export class ContainerCreateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContainerCreateError";
  }
}

/**
 * The id of the top mount holding `path`. Kept as its own async step: the container start awaits
 * it exactly as often as it always has, so the simulated timeline does not move.
 */
async function mountIdAt(host: Host, path: string): Promise<number | undefined> {
  const id = await host.mountIdAt(path);
  return id;
}

function propagationOf(mount: VolumeMount): ContainerMount["propagation"] {
  const value = mount.mountPropagation;
  return value === "HostToContainer" || value === "Bidirectional" ? value : "None";
}

function followsHost(mount: VolumeMount): boolean {
  return mount.mountPropagation === "HostToContainer" || mount.mountPropagation === "Bidirectional";
}

/**
 * Makes sure the source exists, as the runtime's `MkdirAll` does: a missing directory is created, and
 * a source on a dead mount fails the way Docker reports it (`mkdir` answers "file exists" because the
 * stat that preceded it failed).
 */
async function prepareSource(host: Host, hostPath: string): Promise<void> {
  try {
    await host.stat(hostPath);
    return;
  } catch (error) {
    if (isCorruptedMnt(error)) {
      throw new ContainerCreateError(
        `error while creating mount source path '${hostPath}': mkdir ${hostPath}: ${ERRNO_TEXT.EEXIST}`,
      );
    }
    if (!isHostError(error, "ENOENT")) throw error;
  }
  await host.mkdir(hostPath, 0o755, { recursive: true });
}

/**
 * Binds the container's volume mounts from `mountedVolumes` (outer volume name → node path, as the
 * volume manager reports them). A volume the pod's containers use but that is not mounted is
 * Kubernetes' `cannot find volume "x" to mount into container "c"`.
 */
export async function prepareContainerMounts(
  host: Host,
  container: Pick<Container, "name" | "volumeMounts">,
  mountedVolumes: ReadonlyMap<string, string>,
  subpaths: SubpathBinder,
): Promise<ContainerMount[]> {
  const mounts: ContainerMount[] = [];
  for (const [mountIndex, volumeMount] of (container.volumeMounts ?? []).entries()) {
    const volumePath = mountedVolumes.get(volumeMount.name);
    if (volumePath === undefined) {
      throw new ContainerCreateError(
        `cannot find volume "${volumeMount.name}" to mount into container "${container.name}"`,
      );
    }
    const sourcePath = volumeMount.subPath ? posix.join(volumePath, volumeMount.subPath) : volumePath;
    await prepareSource(host, sourcePath);
    // A subPath is bound once, to what it names now; the whole volume is its directory, which stays.
    const hostPath = volumeMount.subPath
      ? await bindSubpathOrFail(subpaths, container.name, volumeMount.name, mountIndex, sourcePath)
      : sourcePath;
    mounts.push({
      volumeName: volumeMount.name,
      containerPath: posix.normalize(volumeMount.mountPath),
      hostPath,
      readOnly: volumeMount.readOnly === true,
      followsHostMounts: followsHost(volumeMount),
      propagation: propagationOf(volumeMount),
      mountIdAtStart: await mountIdAt(host, hostPath),
    });
  }
  // The runtime keeps the list as long as the container lives: an exact-size copy, since an array
  // grown by push keeps spare room for more entries than the one mount most containers have.
  return mounts.slice();
}

async function bindSubpathOrFail(
  subpaths: SubpathBinder,
  containerName: string,
  volumeName: string,
  mountIndex: number,
  source: string,
): Promise<string> {
  try {
    return await subpaths.bind(volumeName, mountIndex, source);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new ContainerCreateError(
      `failed to prepare subPath for volumeMount "${volumeName}" of container "${containerName}"`,
    );
  }
}

/** Where a container path lives: on the node (a volume) or in the image, which is not modelled. */
type ResolvedPath =
  | { where: "volume"; hostPath: string; mount: ContainerMount }
  | { where: "image"; containerPath: string };

/** Maps a path inside the container to the node path behind it (the longest matching mount wins). */
export function resolveContainerPath(mounts: readonly ContainerMount[], containerPath: string): ResolvedPath {
  const path = posix.normalize(containerPath);
  let best: ContainerMount | undefined;
  for (const mount of mounts) {
    const inside = path === mount.containerPath || path.startsWith(`${mount.containerPath}/`);
    if (inside && (best === undefined || mount.containerPath.length > best.containerPath.length)) best = mount;
  }
  if (best === undefined) return { where: "image", containerPath: path };
  return { where: "volume", hostPath: posix.join(best.hostPath, path.slice(best.containerPath.length)), mount: best };
}

/**
 * Throws ENOTCONN when the node mount the container started with has been replaced: the container
 * still holds the old one, which for a FUSE mount whose daemon died is "transport endpoint is not
 * connected" forever.
 */
export async function checkContainerStillSeesMount(host: Host, resolved: ResolvedPath & { where: "volume" }) {
  const { mount } = resolved;
  if (mount.followsHostMounts || mount.mountIdAtStart === undefined) return;
  if ((await mountIdAt(host, mount.hostPath)) === mount.mountIdAtStart) return;
  throw new HostError("ENOTCONN", "stat", resolved.hostPath);
}
