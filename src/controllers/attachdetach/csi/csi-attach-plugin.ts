/**
 * The CSI plugin as the attach/detach controller sees it: it attaches and detaches persistent CSI
 * volumes through VolumeAttachment objects (`volume/plugins/csi/csi-attacher.ts`) and is attachable
 * only when the driver's CSIDriver does not say `attachRequired: false`. Everything that runs on a
 * node (stage, publish, WaitForAttach) belongs to the kubelet's CSI plugin and is refused here,
 * as Kubernetes' controller-side plugin refuses node work.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { csiPluginName } from "../../../volume/paths.ts";
import type {
  AttachableVolumePlugin,
  Attacher,
  Detacher,
  DeviceMounter,
  DeviceUnmounter,
  ReconstructedVolume,
  VolumeMounter,
  VolumeUnmounter,
} from "../../../volume/plugin.ts";
import { type CsiAttacher, csiVolumeId, csiVolumeNameSeparator } from "../../../volume/plugins/csi/csi-attacher.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";
import type { VolumeHost } from "../../../volume/volume-host.ts";

function nodeOnly(what: string): Error {
  return new Error(`kubernetes.io/csi: ${what} runs on the node, not in the attach/detach controller`);
}

/** Attach and detach through VolumeAttachments; device work is the node's. */
class ControllerCsiAttacher implements Attacher, Detacher {
  constructor(private readonly csi: CsiAttacher) {}

  attach(spec: VolumeSpec, nodeName: string): Promise<string> {
    return this.csi.attach(spec, nodeName);
  }

  volumesAreAttached(specs: readonly VolumeSpec[], nodeName: string): Promise<Map<string, boolean>> {
    return this.csi.volumesAreAttached(specs, nodeName);
  }

  detach(volumeName: string, nodeName: string): Promise<void> {
    return this.csi.detach(volumeName, nodeName);
  }

  async waitForAttach(): Promise<string> {
    throw nodeOnly("WaitForAttach");
  }

  async getDeviceMountPath(): Promise<string> {
    throw nodeOnly("GetDeviceMountPath");
  }

  async mountDevice(): Promise<void> {
    throw nodeOnly("MountDevice (NodeStageVolume)");
  }

  async unmountDevice(): Promise<void> {
    throw nodeOnly("UnmountDevice (NodeUnstageVolume)");
  }
}

export class CsiAttachPlugin implements AttachableVolumePlugin {
  readonly name = csiPluginName;

  constructor(private readonly csi: CsiAttacher) {}

  init(_host: VolumeHost): void {
    // Everything the controller side needs came with the constructor.
  }

  /** Persistent CSI volumes only: inline ephemeral CSI volumes are never attached. */
  canSupport(spec: VolumeSpec): boolean {
    return csiVolumeId(spec) !== undefined;
  }

  requiresRemount(): boolean {
    return false;
  }

  supportsMountOption(): boolean {
    return true;
  }

  /** `<driver>^<volumeHandle>`. */
  getVolumeName(spec: VolumeSpec): string {
    const id = csiVolumeId(spec);
    if (id === undefined) throw new Error(`volume "${spec.name()}" is not a CSI persistent volume`);
    return `${id.driver}${csiVolumeNameSeparator}${id.volumeHandle}`;
  }

  canAttach(spec: VolumeSpec): boolean {
    return this.csi.requiresAttach(spec);
  }

  canDeviceMount(spec: VolumeSpec): boolean {
    return this.canSupport(spec);
  }

  newAttacher(): Attacher {
    return new ControllerCsiAttacher(this.csi);
  }

  newDetacher(): Detacher {
    return new ControllerCsiAttacher(this.csi);
  }

  newDeviceMounter(): DeviceMounter {
    return new ControllerCsiAttacher(this.csi);
  }

  newDeviceUnmounter(): DeviceUnmounter {
    return new ControllerCsiAttacher(this.csi);
  }

  async getDeviceMountRefs(): Promise<string[]> {
    throw nodeOnly("GetDeviceMountRefs");
  }

  newMounter(_spec: VolumeSpec, _pod: Pod): VolumeMounter {
    throw nodeOnly("SetUp (NodePublishVolume)");
  }

  newUnmounter(): VolumeUnmounter {
    throw nodeOnly("TearDown (NodeUnpublishVolume)");
  }

  async constructVolumeSpec(): Promise<ReconstructedVolume> {
    throw nodeOnly("reconstruction");
  }
}
