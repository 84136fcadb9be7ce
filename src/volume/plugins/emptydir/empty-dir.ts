/**
 * One emptyDir volume of one pod (Kubernetes' emptydir.emptyDir): set up as a plain directory on the
 * node's disk, a tmpfs, or a hugetlbfs, and torn down according to what is really mounted there.
 * Secret, configMap, downwardAPI and projected volumes use it as their backing store through
 * `setUpAt` / `tearDownAt` on their own directory.
 */
import { posix } from "node:path";
import type { Pod } from "kubernetes-types/core/v1.js";
import { pathExists } from "../../../host/mount/mount-points.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { podPluginDir, podVolumeDir } from "../../paths.ts";
import type { MounterArgs, VolumeAttributes, VolumeMounter, VolumeUnmounter } from "../../plugin.ts";
import { isReady, setReady } from "../../util/ready-file.ts";
import { removeAllOneFilesystem } from "../../util/remove-all.ts";
import type { NodeVolumeContext, VolumeLogger } from "../../volume-host.ts";
import { isLikelyMountPoint } from "../pod-mount.ts";
import {
  getMountMedium,
  hugePageSizeFromMedium,
  isHugePageMedium,
  mediumDefault,
  mediumHugePages,
  mediumMemory,
  pageSizeMountOption,
  type StorageMedium,
} from "./medium.ts";

export const emptyDirPluginName = "kubernetes.io/empty-dir";
/** Everyone may write an emptyDir: containers run as arbitrary users. */
const emptyDirDirMode = 0o777;

interface EmptyDirOptions {
  node: NodeVolumeContext;
  logger: VolumeLogger;
  podUID: string;
  volumeName: string;
  medium: StorageMedium;
  /** tmpfs `size=` in bytes (Memory medium); none → the kernel default. */
  sizeLimitBytes?: number;
  /** Needed to set up huge pages (the page size comes from the pod's requests). */
  pod?: Pod;
}

export class EmptyDir implements VolumeMounter, VolumeUnmounter {
  private readonly node: NodeVolumeContext;
  private readonly logger: VolumeLogger;
  readonly podUID: string;
  readonly volumeName: string;
  private medium: StorageMedium;
  private readonly sizeLimitBytes: number | undefined;
  private readonly pod: Pod | undefined;

  constructor(options: EmptyDirOptions) {
    this.node = options.node;
    this.logger = options.logger;
    this.podUID = options.podUID;
    this.volumeName = options.volumeName;
    this.medium = options.medium;
    this.sizeLimitBytes = options.sizeLimitBytes;
    this.pod = options.pod;
  }

  getPath(): string {
    return podVolumeDir(this.node.rootDir, this.podUID, emptyDirPluginName, this.volumeName);
  }

  getAttributes(): VolumeAttributes {
    return { readOnly: false, managed: true };
  }

  /** `pods/<uid>/plugins/kubernetes.io~empty-dir/<volume>`: holds the `ready` marker. */
  metaDir(): string {
    return posix.join(podPluginDir(this.node.rootDir, this.podUID, emptyDirPluginName), this.volumeName);
  }

  setUp(args: MounterArgs): Promise<void> {
    return this.setUpAt(this.getPath(), args);
  }

  /** Prepares `dir` on this volume's medium; a volume already prepared is left as it is. */
  async setUpAt(dir: string, _args: MounterArgs): Promise<void> {
    const notMountPoint = !(await isLikelyMountPoint(this.node, dir));
    if (await isReady(this.node.host, this.metaDir(), this.logger)) {
      if (this.medium === mediumMemory && !notMountPoint) return;
      if (this.medium === mediumDefault) {
        if ((await pathExists(this.node.host, dir)).exists) return;
        // Only happens when someone removed the volume directory by hand.
        this.logger.warning(
          `volume ready file dir ${this.metaDir()} exist, but volume dir ${dir} does not. Remove ready dir`,
        );
        await removeAllOneFilesystem(this.node.host, this.metaDir());
      }
    }
    await this.setUpMedium(dir);
    // fsGroup ownership is not applied: the Host seam has no chown, and kvol runs containers as root.
    await setReady(this.node.host, this.metaDir(), this.logger);
  }

  private async setUpMedium(dir: string): Promise<void> {
    if (this.medium === mediumDefault) return this.setUpDir(dir);
    if (this.medium === mediumMemory) return this.setUpTmpfs(dir);
    if (isHugePageMedium(this.medium)) return this.setUpHugePages(dir);
    throw new Error(`unknown storage medium "${this.medium}"`);
  }

  /** mkdir -p with mode 0777, then chmod because the kubelet's umask may have cut bits. */
  private async setUpDir(dir: string): Promise<void> {
    const host = this.node.host;
    await host.mkdir(dir, emptyDirDirMode, { recursive: true });
    if ((await host.lstat(dir)).mode === emptyDirDirMode) return;
    await host.chmod(dir, emptyDirDirMode);
    const mode = (await host.lstat(dir)).mode;
    if (mode !== emptyDirDirMode) {
      this.logger.warning(`Expected directory "${dir}" permissions to be: 0777; got: 0${mode.toString(8)}`);
    }
  }

  private async setUpTmpfs(dir: string): Promise<void> {
    await this.setUpDir(dir);
    const current = await getMountMedium(this.node.mounter, dir, this.medium);
    if (current.isMountPoint && current.medium === mediumMemory) return;
    const options = this.sizeLimitBytes !== undefined && this.sizeLimitBytes > 0 ? [`size=${this.sizeLimitBytes}`] : [];
    this.logger.info(`pod ${this.podUID}: mounting tmpfs for volume ${this.volumeName}`);
    // A tmpfs needs no helper daemon, so it never goes through a systemd scope.
    await this.node.mounter.mount("tmpfs", dir, "tmpfs", options, { withSystemd: false });
  }

  private async setUpHugePages(dir: string): Promise<void> {
    await this.setUpDir(dir);
    const current = await getMountMedium(this.node.mounter, dir, this.medium);
    if (current.isMountPoint && isHugePageMedium(current.medium)) {
      if (this.medium === mediumHugePages) return;
      if (current.pageSize === undefined) throw new Error("pageSize is unknown");
      const wanted = hugePageSizeFromMedium(this.medium);
      if (!wanted.equals(current.pageSize)) {
        throw new Error(`current mount page size ${current.pageSize} does not match medium page size ${wanted}`);
      }
      return;
    }
    if (this.pod === undefined) throw new Error(`medium ${this.medium}: huge pages need the pod's resource requests`);
    const option = pageSizeMountOption(this.medium, this.pod);
    this.logger.info(`pod ${this.podUID}: mounting hugepages for volume ${this.volumeName}`);
    await this.node.mounter.mount("nodev", dir, "hugetlbfs", [option], { withSystemd: false });
  }

  tearDown(): Promise<void> {
    return this.tearDownAt(this.getPath());
  }

  /** Removes the ready marker, then unmounts a tmpfs/hugetlbfs if one is there, then deletes the directory. */
  async tearDownAt(dir: string): Promise<void> {
    const host = this.node.host;
    try {
      await removeAllOneFilesystem(host, this.metaDir());
    } catch (err) {
      throw new Error(`failed to remove ready dir [${this.metaDir()}]: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    const existence = await pathExists(host, dir);
    if (existence.error !== undefined) throw new Error(`error checking if path exists: ${existence.error.message}`);
    if (!existence.exists) {
      this.logger.warning(`Warning: Unmount skipped because path does not exist: ${dir}`);
      return;
    }
    const current = await getMountMedium(this.node.mounter, dir, this.medium);
    if (current.isMountPoint && (current.medium === mediumMemory || current.medium === mediumHugePages)) {
      this.medium = current.medium;
      await this.node.mounter.unmount(dir);
    }
    await removeAllOneFilesystem(host, dir);
  }
}
