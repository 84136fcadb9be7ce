/**
 * The plugin side of secret, configMap, downwardAPI and projected volumes: each keeps its own
 * wrapped emptyDir plugin, is set up again on every pod sync, refuses mount options, and hands
 * AtomicVolumeMounter a payload builder. A subclass says which volume source it reads, on which
 * medium its files live, and how the files are built.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { Payload } from "../../atomic-writer.ts";
import type { MounterArgs, ReconstructedVolume, VolumeMounter, VolumePlugin, VolumeUnmounter } from "../../plugin.ts";
import type { VolumeSpec } from "../../spec.ts";
import type { NodeVolumeContext, VolumeHost } from "../../volume-host.ts";
import { EmptyDirPlugin } from "../emptydir/empty-dir-plugin.ts";
import type { StorageMedium } from "../emptydir/medium.ts";
import { PluginBase } from "../plugin-base.ts";
import { podUIDOf } from "../pod-uid.ts";
import { AtomicVolumeMounter, type AtomicVolumeTarget, AtomicVolumeUnmounter } from "./atomic-volume.ts";

/** What a payload builder may look at when SetUp runs. */
export interface PayloadContext {
  spec: VolumeSpec;
  pod: Pod;
  node: NodeVolumeContext;
  args: MounterArgs;
}

export abstract class AtomicVolumePlugin<Source> extends PluginBase implements VolumePlugin {
  /** The source's field name as messages use it: `volume "x" is not a <kind> volume`. */
  protected abstract readonly kind: string;
  /** Memory (tmpfs) for secrets, tokens and pod metadata; the node's disk for configMaps. */
  protected abstract readonly medium: StorageMedium;
  private readonly emptyDirPlugin = new EmptyDirPlugin();

  abstract getVolumeName(spec: VolumeSpec): string;
  abstract constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume>;
  protected abstract sourceOf(spec: VolumeSpec): Source | undefined;
  /** Builds the files; throws the user-facing error (`secret "x" not found`) when it cannot. */
  protected abstract collectPayload(source: Source, context: PayloadContext): Promise<Payload>;

  override init(host: VolumeHost): void {
    super.init(host);
    this.emptyDirPlugin.init(host);
  }

  canSupport(spec: VolumeSpec): boolean {
    return this.sourceOf(spec) !== undefined;
  }

  requiresRemount(): boolean {
    return true;
  }

  supportsMountOption(): boolean {
    return false;
  }

  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    const source = this.requireSource(spec);
    const target = this.target(spec.name(), podUIDOf(pod));
    return new AtomicVolumeMounter(target, pod, (args) =>
      this.collectPayload(source, { spec, pod, node: target.node, args }),
    );
  }

  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    return new AtomicVolumeUnmounter(this.target(specName, podUID));
  }

  protected requireSource(spec: VolumeSpec): Source {
    const source = this.sourceOf(spec);
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not a ${this.kind} volume`);
    return source;
  }

  private target(volumeName: string, podUID: string): AtomicVolumeTarget {
    return {
      pluginName: this.name,
      host: this.host,
      node: this.node(`${this.kind} volume`),
      emptyDirPlugin: this.emptyDirPlugin,
      medium: this.medium,
      volumeName,
      podUID,
    };
  }
}
