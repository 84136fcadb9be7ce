/**
 * Setting up and tearing down a pod's bind mount of a volume that is mounted once per node (local
 * block devices, rbd, attachable disks): the per-node mount at the global path is shared, and each
 * pod gets `mount --bind <global> <pod dir>` (Kubernetes' diskSetUp / diskTearDown).
 */
import { cleanupMountPoint } from "../../host/mount/cleanup-mount-point.ts";
import type { MounterArgs, VolumeAttributes, VolumeMounter, VolumeUnmounter } from "../plugin.ts";
import type { VolumeSpec } from "../spec.ts";
import { joinMountOptions, mountOptionsFromSpec } from "../util/mount-options.ts";
import type { NodeVolumeContext, VolumeLogger } from "../volume-host.ts";
import { PodDirUnmounter } from "./pod-dir-unmounter.ts";
import { isMountPoint, mountIntoPodDir } from "./pod-mount.ts";

interface BindMountRequest {
  /** The per-node mount (or, for a local directory PV, the directory itself). */
  globalPath: string;
  /** The pod's volume directory. */
  dir: string;
  readOnly: boolean;
  mountOptions: readonly string[];
  /** Refuse when nothing is mounted at `globalPath` yet (`no device is mounted at <path>`). */
  requireGlobalMount: boolean;
}

/**
 * Bind-mounts the global path into the pod's directory unless it is already mounted there. A failed
 * mount is undone (unmounted if it half-happened, directory removed) and its error returned.
 */
async function bindMountIntoPod(
  node: NodeVolumeContext,
  logger: VolumeLogger,
  request: BindMountRequest,
): Promise<void> {
  const { globalPath, dir } = request;
  if (request.requireGlobalMount && !(await isMountPoint(node, globalPath))) {
    throw new Error(`no device is mounted at ${globalPath}`);
  }
  await mountIntoPodDir(node, logger, {
    source: globalPath,
    dir,
    fsType: "",
    options: joinMountOptions(request.mountOptions, request.readOnly ? ["bind", "ro"] : ["bind"]),
    withSystemd: false,
    cleanupFailureContext: `failed to remove ${dir}`,
  });
}

/** Unmounts the pod's bind mount if present and removes the directory (never recursively). */
function tearDownPodMount(node: NodeVolumeContext, dir: string, extensiveMountPointCheck: boolean): Promise<void> {
  return cleanupMountPoint(node.host, node.mounter, dir, extensiveMountPointCheck);
}

/**
 * What a bind-mounting plugin tells all its pod mounters, from the pod volume's spec: one object per
 * plugin, so that each mounter (the kubelet keeps one per mounted pod volume) holds only its own
 * directory and spec, and what it needs is derived from the spec when SetUp runs.
 */
export interface PodBindSource {
  /** Refuse when nothing is mounted at the global path yet (`no device is mounted at <path>`). */
  readonly requireGlobalMount: boolean;
  readOnly(spec: VolumeSpec): boolean;
  /** The path to bind, found when SetUp runs, so that a failure to find it is a SetUp failure. */
  globalPath(node: NodeVolumeContext, spec: VolumeSpec): Promise<string>;
}

/** The mounter of a bind-mounting plugin: SetUp is bindMountIntoPod. */
export class PodBindMounter implements VolumeMounter {
  constructor(
    private readonly node: NodeVolumeContext,
    private readonly logger: VolumeLogger,
    private readonly dir: string,
    private readonly spec: VolumeSpec,
    private readonly source: PodBindSource,
  ) {}

  getPath(): string {
    return this.dir;
  }

  getAttributes(): VolumeAttributes {
    const readOnly = this.source.readOnly(this.spec);
    return { readOnly, managed: !readOnly };
  }

  async setUp(_args: MounterArgs): Promise<void> {
    const { spec, source } = this;
    const globalPath = await source.globalPath(this.node, spec);
    await bindMountIntoPod(this.node, this.logger, {
      globalPath,
      dir: this.dir,
      readOnly: source.readOnly(spec),
      mountOptions: mountOptionsFromSpec(spec),
      requireGlobalMount: source.requireGlobalMount,
    });
  }
}

/** The unmounter of a bind-mounting plugin; see cleanupMountPoint for `extensiveMountPointCheck`. */
export function podBindUnmounter(
  node: NodeVolumeContext,
  dir: string,
  extensiveMountPointCheck: boolean,
): VolumeUnmounter {
  return new PodDirUnmounter(dir, () => tearDownPodMount(node, dir, extensiveMountPointCheck));
}
