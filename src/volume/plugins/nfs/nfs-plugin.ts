/**
 * The NFS plugin (`kubernetes.io/nfs`): each pod mounts the export itself at
 * `pods/<uid>/volumes/kubernetes.io~nfs/<name>` — nothing is attached or mounted once per node.
 * SetUp runs `mount -t nfs [-o <options>] <server>:<path> <dir>` through mount-utils, so a node
 * without `mount.nfs` fails with mount(8)'s exit status 32 and its exact text (seed 002), and an
 * unreachable server makes that one mount wait while other operations go on. There is no raw block
 * mode: an NFS export is a filesystem (seed 001).
 */
import type { NFSVolumeSource, Pod } from "kubernetes-types/core/v1.js";
import { cleanupMountWithForce } from "../../../host/mount/cleanup-mount-point.ts";
import { podVolumeDir } from "../../paths.ts";
import type {
  MounterArgs,
  ReconstructedVolume,
  VolumeAttributes,
  VolumeMounter,
  VolumePlugin,
  VolumeUnmounter,
} from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import { mountOptionsFromSpec } from "../../util/mount-options.ts";
import type { NodeVolumeContext, VolumeLogger } from "../../volume-host.ts";
import { PluginBase } from "../plugin-base.ts";
import { PodDirUnmounter } from "../pod-dir-unmounter.ts";
import { mountIntoPodDir, type PodMountRequest } from "../pod-mount.ts";
import { podUIDOf } from "../pod-uid.ts";

const nfsPluginName = "kubernetes.io/nfs";
/** TearDown's plain `umount` gets this long before `umount -f` (a hung server blocks a plain umount). */
const nfsUnmountTimeoutMs = 60_000;

export interface NfsPluginOptions {
  /**
   * Mount without a transient systemd scope (Kubernetes' MountSensitiveWithoutSystemd, used by NFS
   * in recent releases). Default false: the Mounter decides, as older releases did (seed 002).
   */
  mountWithoutSystemd?: boolean;
}

interface NfsSource {
  source: NFSVolumeSource;
  readOnly: boolean;
}

/** Inline volumes carry their own readOnly; a PV takes the pod's claim reference readOnly. */
function nfsSource(spec: VolumeSpec): NfsSource | undefined {
  if (spec.volume?.nfs !== undefined) return { source: spec.volume.nfs, readOnly: spec.volume.nfs.readOnly ?? false };
  const pvSource = spec.persistentVolume?.spec?.nfs;
  return pvSource === undefined ? undefined : { source: pvSource, readOnly: spec.readOnly };
}

function requireNfsSource(spec: VolumeSpec): NfsSource {
  const found = nfsSource(spec);
  if (found === undefined) throw new Error(`spec does not reference a NFS volume type: volume "${spec.name()}"`);
  return found;
}

function volumeDir(node: NodeVolumeContext, podUID: string, specName: string): string {
  return podVolumeDir(node.rootDir, podUID, nfsPluginName, specName);
}

/** Each pod mounts the export itself; see mountIntoPodDir for the already-mounted and failure cases. */
class NfsMounter implements VolumeMounter {
  constructor(
    private readonly node: NodeVolumeContext,
    private readonly logger: VolumeLogger,
    private readonly readOnly: boolean,
    private readonly mount: PodMountRequest,
  ) {}

  getPath(): string {
    return this.mount.dir;
  }

  getAttributes(): VolumeAttributes {
    return { readOnly: this.readOnly, managed: false };
  }

  setUp(_args: MounterArgs): Promise<void> {
    return mountIntoPodDir(this.node, this.logger, this.mount);
  }
}

export class NfsPlugin extends PluginBase implements VolumePlugin {
  readonly name = nfsPluginName;
  private readonly withSystemd: boolean;

  constructor(options: NfsPluginOptions = {}) {
    super();
    this.withSystemd = !(options.mountWithoutSystemd ?? false);
  }

  canSupport(spec: VolumeSpec): boolean {
    return nfsSource(spec) !== undefined;
  }

  requiresRemount(): boolean {
    return false;
  }

  supportsMountOption(): boolean {
    return true;
  }

  getVolumeName(spec: VolumeSpec): string {
    const { source } = requireNfsSource(spec);
    return `${source.server}/${source.path}`;
  }

  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    const { source, readOnly } = requireNfsSource(spec);
    const node = this.node("NFS SetUp");
    const dir = volumeDir(node, podUIDOf(pod), spec.name());
    return new NfsMounter(node, this.host.logger, readOnly, {
      source: `${source.server}:${source.path}`,
      dir,
      fsType: "nfs",
      options: mountOptionsFromSpec(spec, ...(readOnly ? ["ro"] : [])),
      withSystemd: this.withSystemd,
      cleanupFailureContext: `cleanup after failed NFS mount of ${dir}`,
    });
  }

  /** CleanupMountWithForce with the mount-table check: a hung server gets `umount -f` after a minute. */
  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    const node = this.node("NFS TearDown");
    return new PodDirUnmounter(volumeDir(node, podUID, specName), (dir) =>
      cleanupMountWithForce(node.host, node.mounter, dir, true, nfsUnmountTimeoutMs),
    );
  }

  /** Recovers `server:path` from the mount table when the directory is still mounted. */
  async constructVolumeSpec(volumeName: string, mountPath: string): Promise<ReconstructedVolume> {
    const mounts = await this.node("NFS reconstruction").host.mountInfo();
    const mounted = mounts.find((mount) => mount.mountPoint === mountPath && mount.fsType.startsWith("nfs"));
    const separator = mounted?.source.indexOf(":") ?? -1;
    const source: NFSVolumeSource =
      mounted !== undefined && separator > 0
        ? { server: mounted.source.slice(0, separator), path: mounted.source.slice(separator + 1) }
        : { server: "", path: volumeName };
    return { spec: VolumeSpec.fromVolume({ name: volumeName, nfs: source }) };
  }
}
