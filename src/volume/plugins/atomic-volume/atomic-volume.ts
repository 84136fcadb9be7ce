/**
 * The common shape of secret, configMap, downwardAPI and projected volumes: collect the files from
 * the API, prepare the pod's volume directory as an emptyDir (tmpfs for the secret-bearing kinds,
 * node disk for configMap), then publish the files with the AtomicWriter. Set up again on every pod
 * sync (RequiresRemount), which is how an updated Secret reaches running pods.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { errorMessage } from "../../../runtime/error-message.ts";
import { AtomicWriter, type Payload } from "../../atomic-writer.ts";
import { podVolumeDir } from "../../paths.ts";
import type { MounterArgs, VolumeAttributes, VolumeMounter, VolumeUnmounter } from "../../plugin.ts";
import type { NodeVolumeContext, VolumeHost } from "../../volume-host.ts";
import type { EmptyDir } from "../emptydir/empty-dir.ts";
import type { EmptyDirPlugin } from "../emptydir/empty-dir-plugin.ts";
import type { StorageMedium } from "../emptydir/medium.ts";

export interface AtomicVolumeTarget {
  pluginName: string;
  host: VolumeHost;
  node: NodeVolumeContext;
  /** Provides the backing emptyDir. */
  emptyDirPlugin: EmptyDirPlugin;
  /** Memory (tmpfs) for secrets, tokens and pod metadata; the node's disk for configMaps. */
  medium: StorageMedium;
  volumeName: string;
  podUID: string;
}

function volumePath(target: AtomicVolumeTarget): string {
  return podVolumeDir(target.node.rootDir, target.podUID, target.pluginName, target.volumeName);
}

function wrapperOf(target: AtomicVolumeTarget, pod: Pod | undefined): EmptyDir {
  return target.emptyDirPlugin.newWrapper(target.volumeName, target.medium, pod, target.podUID);
}

export class AtomicVolumeMounter implements VolumeMounter {
  constructor(
    private readonly target: AtomicVolumeTarget,
    private readonly pod: Pod,
    /** Builds the files; throws the user-facing error (`secret "x" not found`) when it cannot. */
    private readonly collectPayload: (args: MounterArgs) => Promise<Payload>,
  ) {}

  getPath(): string {
    return volumePath(this.target);
  }

  getAttributes(): VolumeAttributes {
    return { readOnly: true, managed: true };
  }

  async setUp(args: MounterArgs): Promise<void> {
    const { host, node } = this.target;
    // The data is fetched first: a missing Secret leaves no directory behind.
    const payload = await this.collectPayload(args);
    const dir = this.getPath();
    const wrapper = wrapperOf(this.target, this.pod);
    await wrapper.setUpAt(dir, args);
    const writer = new AtomicWriter(node.host, dir, {
      clock: host.clock,
      rng: host.rng,
      logger: host.logger,
      logContext: `pod ${this.pod.metadata?.namespace ?? ""}/${this.pod.metadata?.name ?? ""} volume ${this.target.volumeName}`,
    });
    try {
      await writer.write(payload);
    } catch (err) {
      // As in Kubernetes, a volume whose files could not be written is removed rather than left half-done.
      await this.tearDownAfterFailure(wrapper, dir);
      throw err;
    }
  }

  private async tearDownAfterFailure(wrapper: EmptyDir, dir: string): Promise<void> {
    try {
      await wrapper.tearDownAt(dir);
    } catch (err) {
      this.target.host.logger.warning(
        `Error tearing down volume ${this.target.volumeName} with : ${errorMessage(err)}`,
      );
    }
  }
}

export class AtomicVolumeUnmounter implements VolumeUnmounter {
  constructor(private readonly target: AtomicVolumeTarget) {}

  getPath(): string {
    return volumePath(this.target);
  }

  /** Unmounts the tmpfs if there is one and removes the directory with everything in it. */
  tearDown(): Promise<void> {
    return wrapperOf(this.target, undefined).tearDownAt(this.getPath());
  }
}

/** Go's utilerrors.NewAggregate message: one error as it is, several as `[a, b]`. */
export function aggregateError(errors: readonly Error[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return new Error(`[${errors.map((err) => err.message).join(", ")}]`);
}

/** The mode a file gets: its own, else the volume's default, else 0644. */
export const defaultProjectedFileMode = 0o644;

export function fileMode(itemMode: number | undefined, defaultMode: number | undefined): number {
  return itemMode ?? defaultMode ?? defaultProjectedFileMode;
}
