/**
 * The kubelet's CSI volume plugin, `kubernetes.io/csi` (pkg/volume/csi, spec §5.9, §5.10): persistent
 * volumes whose PV has `spec.csi`, and inline ephemeral volumes (`pod.spec.volumes[].csi`, neither
 * attachable nor device-mountable: published only), served by the driver registered under that name
 * on this node.
 *
 * - Attachable when the driver's CSIDriver does not say `attachRequired: false` (a missing
 *   CSIDriver means attach is required); the kubelet only checks the VolumeAttachment, the
 *   attach/detach controller attaches.
 * - Device-mountable (NodeStage at `…/<sha256(handle)>/globalmount`): MountDevice always runs and
 *   skips the NodeStage call itself for drivers without STAGE_UNSTAGE_VOLUME, as Kubernetes does.
 * - Mounter: NodePublish to `pods/<uid>/volumes/kubernetes.io~csi/<spec>/mount`.
 * - Raw block: NodeStage / NodePublish under `plugins/kubernetes.io/csi/volumeDevices/`.
 * - NodeExpand: NodeExpandVolume when the driver's node service has EXPAND_VOLUME (csi-expander.ts).
 * - Reconstruction reads `vol_data.json`.
 */

import { posix } from "node:path";
import type { Pod } from "kubernetes-types/core/v1.js";
import { errorMessage } from "../../../runtime/error-message.ts";
import { csiBlockVolumeDataPath, csiPluginName } from "../../paths.ts";
import type {
  AttachableVolumePlugin,
  Attacher,
  BlockVolumeMapper,
  BlockVolumePlugin,
  BlockVolumeUnmapper,
  Detacher,
  DeviceMounter,
  DeviceUnmounter,
  NodeExpandableVolumePlugin,
  NodeResizeOptions,
  ReconstructedVolume,
  VolumeMounter,
  VolumeUnmounter,
} from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import { PluginBase } from "../plugin-base.ts";
import { csiVolumeId, csiVolumeNameSeparator } from "./csi-attacher.ts";
import { CsiBlockMapper, CsiBlockUnmapper } from "./csi-block-mapper.ts";
import { csiMessagePrefix, ephemeralLifecycleMode } from "./csi-constants.ts";
import { type CsiPluginApi, driverSkipsAttach } from "./csi-driver-policy.ts";
import type { CsiDriverRegistry } from "./csi-driver-registry.ts";
import { csiInlineSource } from "./csi-ephemeral.ts";
import { csiNodeExpand } from "./csi-expander.ts";
import { CsiMounter, CsiUnmounter } from "./csi-mounter.ts";
import { CsiNodeAttacher } from "./csi-node-attacher.ts";
import type { CsiNodeContext } from "./csi-node-context.ts";
import { loadVolumeData, volumeDataKey } from "./volume-data.ts";

export interface CsiPluginOptions {
  /** The drivers registered on this node (filled by CsiRegistrationHandler). */
  drivers: CsiDriverRegistry;
  api: CsiPluginApi;
  /** Stage at `plugins/kubernetes.io/csi/pv/<pv name>/globalmount`, the layout of older kubelets. */
  legacyStagingPath?: boolean;
}

/** A PV spec rebuilt from `vol_data.json` (csi_plugin.go constructPVSourceSpec). */
function reconstructedPersistentVolume(
  name: string,
  driver: string,
  volumeHandle: string,
  volumeMode: "Filesystem" | "Block",
): VolumeSpec {
  return VolumeSpec.fromPersistentVolume({
    metadata: { name },
    spec: { csi: { driver, volumeHandle }, volumeMode },
  });
}

export class CsiPlugin
  extends PluginBase
  implements AttachableVolumePlugin, BlockVolumePlugin, NodeExpandableVolumePlugin
{
  readonly name = csiPluginName;

  constructor(private readonly options: CsiPluginOptions) {
    super();
  }

  /** Persistent CSI volumes and inline (ephemeral) ones. */
  canSupport(spec: VolumeSpec): boolean {
    return csiVolumeId(spec) !== undefined || csiInlineSource(spec) !== undefined;
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
    if (id === undefined) throw new Error(`${csiMessagePrefix}volume "${spec.name()}" is not a CSI persistent volume`);
    return `${id.driver}${csiVolumeNameSeparator}${id.volumeHandle}`;
  }

  canAttach(spec: VolumeSpec): boolean {
    const id = csiVolumeId(spec);
    return id !== undefined && !driverSkipsAttach(this.options.api, id.driver);
  }

  /** Inline volumes are never staged. */
  canDeviceMount(spec: VolumeSpec): boolean {
    return csiVolumeId(spec) !== undefined;
  }

  newAttacher(): Attacher {
    return new CsiNodeAttacher(this.context("Attacher"));
  }

  newDetacher(): Detacher {
    return new CsiNodeAttacher(this.context("Detacher"));
  }

  newDeviceMounter(): DeviceMounter {
    return new CsiNodeAttacher(this.context("MountDevice"));
  }

  newDeviceUnmounter(): DeviceUnmounter {
    return new CsiNodeAttacher(this.context("UnmountDevice"));
  }

  getDeviceMountRefs(deviceMountPath: string): Promise<string[]> {
    return this.node("GetDeviceMountRefs").mounter.getMountRefs(deviceMountPath);
  }

  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    return new CsiMounter(this.context("SetUp"), spec, pod);
  }

  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    return new CsiUnmounter(this.context("TearDown"), specName, podUID);
  }

  /** Every CSI volume may need NodeExpandVolume; the driver's EXPAND_VOLUME capability decides at the call. */
  requiresFSResize(): boolean {
    return true;
  }

  nodeExpand(options: NodeResizeOptions): Promise<boolean> {
    return csiNodeExpand(this.context("NodeExpand"), options);
  }

  newBlockVolumeMapper(spec: VolumeSpec, pod: Pod): BlockVolumeMapper {
    return new CsiBlockMapper(this.context("MapVolume"), spec, pod);
  }

  newBlockVolumeUnmapper(specName: string, podUID: string): BlockVolumeUnmapper {
    return new CsiBlockUnmapper(this.context("UnmapVolume"), specName, podUID);
  }

  /** `mountPath` is the pod volume directory holding `vol_data.json` (next to `mount`). */
  async constructVolumeSpec(volumeName: string, mountPath: string): Promise<ReconstructedVolume> {
    const node = this.node("reconstruction");
    let data: Readonly<Record<string, string>>;
    try {
      data = await loadVolumeData(node.host, mountPath);
    } catch (err) {
      throw new Error(
        `${csiMessagePrefix}plugin.ConstructVolumeSpec failed loading volume data using [${mountPath}]: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    if (data[volumeDataKey.volumeLifecycleMode] === ephemeralLifecycleMode) {
      // csi_plugin.go constructVolSourceSpec: the pod volume, of which only the driver is known.
      const name = data[volumeDataKey.specVolID] ?? volumeName;
      return { spec: VolumeSpec.fromVolume({ name, csi: { driver: data[volumeDataKey.driverName] ?? "" } }) };
    }
    const spec = reconstructedPersistentVolume(
      data[volumeDataKey.specVolID] ?? volumeName,
      data[volumeDataKey.driverName] ?? "",
      data[volumeDataKey.volumeHandle] ?? "",
      "Filesystem",
    );
    return { spec };
  }

  async constructBlockVolumeSpec(_podUID: string, volumeName: string, mapPath: string): Promise<VolumeSpec> {
    const node = this.node("block reconstruction");
    const dataDir = posix.dirname(csiBlockVolumeDataPath(node.rootDir, volumeName));
    let data: Readonly<Record<string, string>>;
    try {
      data = await loadVolumeData(node.host, dataDir);
    } catch (err) {
      throw new Error(
        `${csiMessagePrefix}plugin.ConstructBlockVolumeSpec failed loading volume data using [${mapPath}]: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    return reconstructedPersistentVolume(
      data[volumeDataKey.specVolID] ?? volumeName,
      data[volumeDataKey.driverName] ?? "",
      data[volumeDataKey.volumeHandle] ?? "",
      "Block",
    );
  }

  private context(what: string): CsiNodeContext {
    return {
      volumeHost: this.host,
      node: this.node(what),
      drivers: this.options.drivers,
      api: this.options.api,
      legacyStagingPath: this.options.legacyStagingPath === true,
    };
  }
}
