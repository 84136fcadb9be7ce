/**
 * The hostPath plugin (`kubernetes.io/host-path`): a directory or file of the node itself. Nothing
 * is mounted by the plugin (the container runtime bind-mounts the path); SetUp only checks — or
 * for the *OrCreate types creates — what `type` promises. TearDown has nothing to undo.
 */
import type { HostPathVolumeSource, Pod } from "kubernetes-types/core/v1.js";
import type {
  MounterArgs,
  ReconstructedVolume,
  VolumeAttributes,
  VolumeMounter,
  VolumePlugin,
  VolumeUnmounter,
} from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import type { NodeVolumeContext } from "../../volume-host.ts";
import { PluginBase } from "../plugin-base.ts";
import { checkHostPathType } from "./host-path-type.ts";

const hostPathPluginName = "kubernetes.io/host-path";

function hostPathSource(spec: VolumeSpec): HostPathVolumeSource | undefined {
  return spec.volume?.hostPath ?? spec.persistentVolume?.spec?.hostPath;
}

class HostPathMounter implements VolumeMounter {
  constructor(
    private readonly node: NodeVolumeContext,
    private readonly source: HostPathVolumeSource,
    private readonly readOnly: boolean,
  ) {}

  /** The node path itself: that is what the runtime bind-mounts into containers. */
  getPath(): string {
    return this.source.path;
  }

  getAttributes(): VolumeAttributes {
    return { readOnly: this.readOnly, managed: false };
  }

  async setUp(_args: MounterArgs): Promise<void> {
    const path = this.source.path;
    if (path.split("/").includes("..")) throw new Error(`invalid HostPath \`${path}\`: must not contain '..'`);
    await checkHostPathType(this.node.host, path, this.source.type ?? "");
  }
}

/** Nothing to tear down: the node's path belongs to the node. */
class HostPathUnmounter implements VolumeUnmounter {
  getPath(): string {
    return "";
  }

  async tearDown(): Promise<void> {
    return;
  }
}

export class HostPathPlugin extends PluginBase implements VolumePlugin {
  readonly name = hostPathPluginName;

  canSupport(spec: VolumeSpec): boolean {
    return hostPathSource(spec) !== undefined;
  }

  requiresRemount(): boolean {
    return false;
  }

  supportsMountOption(): boolean {
    return false;
  }

  getVolumeName(spec: VolumeSpec): string {
    const source = hostPathSource(spec);
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not a hostPath volume`);
    return source.path;
  }

  newMounter(spec: VolumeSpec, _pod: Pod): VolumeMounter {
    const source = hostPathSource(spec);
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not a hostPath volume`);
    return new HostPathMounter(this.node("hostPath SetUp"), source, spec.readOnly);
  }

  newUnmounter(): VolumeUnmounter {
    return new HostPathUnmounter();
  }

  /** The node path is not recorded anywhere, so the volume name stands in for it (as in Kubernetes). */
  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, hostPath: { path: volumeName } }) };
  }
}
