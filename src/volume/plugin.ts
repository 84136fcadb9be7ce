/**
 * The volume plugin interfaces (Kubernetes' pkg/volume/plugins.go and volume.go). A plugin's abilities
 * are separate capabilities, as in Kubernetes, so callers ask "is this plugin attachable for this
 * spec?" instead of assuming: every plugin can set up and tear down a pod's volume; some can attach a
 * volume to a node, mount a device once per node, or map a raw block device.
 *
 * Every call may be repeated — after success, after a crash, after an uncertain result — and must
 * then succeed without doing the work twice (spec §4.6).
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { VolumeSpec } from "./spec.ts";
import type { VolumeHost } from "./volume-host.ts";

/** What the kubelet passes to SetUp. */
export interface MounterArgs {
  /** `pod.spec.securityContext.fsGroup`: the group that should own the volume's files. */
  fsGroup?: number;
  /** The user projected files are written for (service account tokens). */
  fsUser?: number;
  /** The size the kubelet wants the volume to have (emptyDir quota / tmpfs size), in bytes. */
  desiredSizeBytes?: number;
}

/** How the container runtime should treat the volume. */
export interface VolumeAttributes {
  readOnly: boolean;
  /** True when the kubelet owns the data (it may change ownership and permissions). */
  managed: boolean;
}

/** A pod's view of one volume: set it up at `getPath()`. */
export interface VolumeMounter {
  /** The pod volume directory (`pods/<uid>/volumes/<plugin>/<spec name>`). */
  getPath(): string;
  getAttributes(): VolumeAttributes;
  /** Makes the volume available at `getPath()`; succeeds when it already is. */
  setUp(args: MounterArgs): Promise<void>;
}

/** Removes a pod's volume from `getPath()`; succeeds when nothing is there. */
export interface VolumeUnmounter {
  getPath(): string;
  tearDown(): Promise<void>;
}

/** A spec rebuilt from what is on disk after a kubelet restart (reconstruction, spec §3.10). */
export interface ReconstructedVolume {
  spec: VolumeSpec;
}

export interface VolumePlugin {
  /** The qualified plugin name, such as `kubernetes.io/nfs`. */
  readonly name: string;
  /** Called once by the plugin manager before any other call. */
  init(host: VolumeHost): void;
  canSupport(spec: VolumeSpec): boolean;
  /** True when a mounted volume must be set up again on every pod sync (secret/configMap refresh). */
  requiresRemount(spec: VolumeSpec): boolean;
  /** Whether the PV's `mountOptions` are honoured; when false they are refused. */
  supportsMountOption(): boolean;
  /** The name that identifies the volume across pods and nodes (the unique name's second half). */
  getVolumeName(spec: VolumeSpec): string;
  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter;
  newUnmounter(specName: string, podUID: string): VolumeUnmounter;
  /** Rebuilds a spec from a pod volume directory found on disk. */
  constructVolumeSpec(volumeName: string, mountPath: string): Promise<ReconstructedVolume>;
}

/** Options MountDevice receives. */
export interface DeviceMounterArgs {
  /** SELinux context for the mount (kept for fidelity; unused by the in-tree plugins here). */
  seLinuxLabel?: string;
}

/** Mounts a node-attached device once per node at a global path, shared by every pod on the node. */
export interface DeviceMounter {
  getDeviceMountPath(spec: VolumeSpec): Promise<string>;
  mountDevice(spec: VolumeSpec, devicePath: string, deviceMountPath: string, args: DeviceMounterArgs): Promise<void>;
}

export interface DeviceUnmounter {
  unmountDevice(deviceMountPath: string): Promise<void>;
}

/** Attaches a volume to a node (controller side) and waits for it to appear (node side). */
export interface Attacher extends DeviceMounter {
  /** Attaches the volume to `nodeName`; returns the device path when the attacher knows it. */
  attach(spec: VolumeSpec, nodeName: string): Promise<string>;
  /** For each spec, whether it is still attached to `nodeName`, keyed by spec name. */
  volumesAreAttached(specs: readonly VolumeSpec[], nodeName: string): Promise<Map<string, boolean>>;
  /** On the node: waits until the device is present and returns its path. */
  waitForAttach(spec: VolumeSpec, devicePath: string, pod: Pod, timeoutMs: number): Promise<string>;
}

export interface Detacher extends DeviceUnmounter {
  /** `volumeName` is the plugin's volume name (the unique name without the plugin prefix). */
  detach(volumeName: string, nodeName: string): Promise<void>;
}

export interface DeviceMountableVolumePlugin extends VolumePlugin {
  /** Dynamic: a plugin may be device-mountable for one spec and not for another. */
  canDeviceMount(spec: VolumeSpec): boolean;
  newDeviceMounter(): DeviceMounter;
  newDeviceUnmounter(): DeviceUnmounter;
  /** Mounts (other than the global one) that still use the device mounted at `deviceMountPath`. */
  getDeviceMountRefs(deviceMountPath: string): Promise<string[]>;
}

export interface AttachableVolumePlugin extends DeviceMountableVolumePlugin {
  /** Dynamic: CSI decides per driver (CSIDriver.attachRequired); inline ephemeral volumes never attach. */
  canAttach(spec: VolumeSpec): boolean;
  newAttacher(): Attacher;
  newDetacher(): Detacher;
}

/** The paths of a raw block volume: one global map directory per volume, one link per pod. */
interface BlockVolume {
  /** `plugins/<plugin>/volumeDevices/<volume id>`: holds one bind-mounted device file per pod. */
  getGlobalMapPath(spec: VolumeSpec): Promise<string>;
  /** The pod's device directory and the link name inside it (`pods/<uid>/volumeDevices/<plugin>`, spec name). */
  getPodDeviceMapPath(): { dir: string; linkName: string };
}

export interface BlockVolumeMapper extends BlockVolume {
  /** Plugins that need node-side work before mapping (CSI NodeStage) return the staged device path. */
  setUpDevice?(): Promise<string>;
  /** Plugins that publish per pod (CSI NodePublish) return the published device path. */
  mapPodDevice?(): Promise<string>;
}

export interface BlockVolumeUnmapper extends BlockVolume {
  /** Releases the node's hold on the device (rbd unmap, CSI NodeUnstage) once no pod maps it. */
  tearDownDevice?(globalMapPath: string, devicePath: string): Promise<void>;
  /** Undoes `mapPodDevice` (CSI NodeUnpublish). */
  unmapPodDevice?(): Promise<void>;
}

export interface BlockVolumePlugin extends VolumePlugin {
  newBlockVolumeMapper(spec: VolumeSpec, pod: Pod): BlockVolumeMapper;
  newBlockVolumeUnmapper(specName: string, podUID: string): BlockVolumeUnmapper;
  /** Rebuilds a block spec from `pods/<uid>/volumeDevices/<plugin>/<volumeName>` found on disk. */
  constructBlockVolumeSpec(podUID: string, volumeName: string, mapPath: string): Promise<VolumeSpec>;
}

/** What the kubelet passes NodeExpand (Kubernetes' NodeResizeOptions). */
export interface NodeResizeOptions {
  volumeSpec: VolumeSpec;
  /** The attached device (block volumes are grown through it). */
  devicePath: string;
  /** The pod's volume path (`getPath()` of the mounter): NodeExpandVolume's `volume_path`. */
  deviceMountPath: string;
  /** The per-node staging path, "" for plugins without one. */
  deviceStagePath: string;
  /** The size the filesystem must grow to, in bytes. */
  newSizeBytes: bigint;
  /** The size the claim reported before (its `status.capacity`), in bytes. */
  oldSizeBytes: bigint;
}

/** A plugin that grows a volume's filesystem on the node (Kubernetes' NodeExpandableVolumePlugin). */
export interface NodeExpandableVolumePlugin extends VolumePlugin {
  /** True when the kubelet must call `nodeExpand` after the volume grew on the storage side. */
  requiresFSResize(): boolean;
  /** Grows the filesystem; true when done. Throws the classes of `errors.ts` (FailedPrecondition, Infeasible, ...). */
  nodeExpand(options: NodeResizeOptions): Promise<boolean>;
}

export function isNodeExpandablePlugin(plugin: VolumePlugin): plugin is NodeExpandableVolumePlugin {
  const candidate = plugin as Partial<NodeExpandableVolumePlugin>;
  return typeof candidate.nodeExpand === "function" && typeof candidate.requiresFSResize === "function";
}

export function isDeviceMountablePlugin(plugin: VolumePlugin): plugin is DeviceMountableVolumePlugin {
  const candidate = plugin as Partial<DeviceMountableVolumePlugin>;
  return typeof candidate.canDeviceMount === "function" && typeof candidate.newDeviceMounter === "function";
}

export function isAttachablePlugin(plugin: VolumePlugin): plugin is AttachableVolumePlugin {
  const candidate = plugin as Partial<AttachableVolumePlugin>;
  return isDeviceMountablePlugin(plugin) && typeof candidate.canAttach === "function";
}

export function isBlockVolumePlugin(plugin: VolumePlugin): plugin is BlockVolumePlugin {
  return typeof (plugin as Partial<BlockVolumePlugin>).newBlockVolumeMapper === "function";
}
