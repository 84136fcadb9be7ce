/**
 * The kubelet's actual state of the world (pkg/kubelet/volumemanager/cache/actual_state_of_world.go):
 * the volumes this node has attached, whether each one's device is mounted once for the node, and
 * which pods have it mounted. Operations record their outcome here through the updater interface
 * of the operation executor; the reconciler compares it with the desired state every pass.
 *
 * States (spec §3.3):
 * - device: DeviceNotMounted, DeviceMountUncertain, DeviceGloballyMounted ("may be mounted" = the last two);
 * - pod mount: VolumeMountUncertain or VolumeMounted while the pod is listed (NotMounted = absent);
 * - remountRequired: set for secret/configMap/downwardAPI/projected after each pod sync.
 * - persistentVolumeSize: the claim's size the filesystem last had on this node (its `status.capacity`
 *   when first seen, the new size after NodeExpandVolume); a larger desired size makes a mounted
 *   volume "resize required" until it grew, unless the driver said it cannot grow in use here.
 * Volumes found on disk after a restart are remembered in `foundDuringReconstruction` until a mount
 * succeeds, so a final mount error leaves them uncertain (and still torn down later).
 */

import { invariant } from "../../../runtime/assert.ts";
import { ChangeSignalledCache } from "../../../runtime/change-signal.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { SmallMap } from "../../../runtime/small-map.ts";
import type {
  AttachedVolume,
  DeviceMountState,
  KubeletActualStateOfWorldUpdater,
  MarkVolumeOptions,
  MountedVolume,
  VolumeMountState,
} from "../../../volume/operationexecutor/types.ts";
import { type BlockVolumeMapper, isNodeExpandablePlugin, type VolumeMounter } from "../../../volume/plugin.ts";
import type { VolumePluginManager } from "../../../volume/plugin-manager.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";

/** Whether the volume's plugin attaches it: Uncertain for reconstructed volumes until node status says. */
type Attachability = "True" | "False" | "Uncertain";

/** An attached volume as the reconciler sees it. */
export interface KubeletAttachedVolume extends AttachedVolume {
  volumeSpec: VolumeSpec;
  pluginName: string;
  deviceMountPath: string;
  pluginIsAttachable: boolean;
  deviceMountState: DeviceMountState;
}

/** A pod's mount of a volume, with what WaitForAttachAndMount and the node agent need. */
export interface KubeletMountedVolume extends MountedVolume {
  volumeMountState: VolumeMountState;
  mounter: VolumeMounter | undefined;
  blockVolumeMapper: BlockVolumeMapper | undefined;
  deviceMountPath: string;
}

/** PodExistsInVolume's answer (Kubernetes returns these as error types). */
type PodVolumeStatus =
  /** The volume is not attached to this node yet. */
  | { kind: "notAttached" }
  /** Attached, but not mounted for this pod (or the mount is uncertain: mount again). */
  | { kind: "notMounted"; devicePath: string }
  /** Mounted, but the content must be refreshed (SetUp again). */
  | { kind: "remountRequired"; devicePath: string }
  /** Mounted, but the claim grew: its filesystem must grow (NodeExpandVolume) from `currentSizeBytes`. */
  | { kind: "resizeRequired"; devicePath: string; currentSizeBytes: bigint }
  | { kind: "mounted"; devicePath: string };

interface MountedPod {
  podName: string;
  podUID: string;
  mounter: VolumeMounter | undefined;
  blockVolumeMapper: BlockVolumeMapper | undefined;
  volumeSpec: VolumeSpec;
  outerVolumeSpecName: string;
  volumeGidValue: string;
  remountRequired: boolean;
  volumeMountState: VolumeMountState;
}

interface AttachedVolumeEntry {
  volumeName: string;
  spec: VolumeSpec;
  pluginName: string;
  pluginIsAttachable: Attachability;
  deviceMountState: DeviceMountState;
  devicePath: string;
  deviceMountPath: string;
  mountedPods: Map<string, MountedPod>;
  /** The claim size the filesystem has on this node, in bytes; 0 while unknown. */
  persistentVolumeSizeBytes: bigint;
  /** The driver answered FailedPrecondition: no NodeExpandVolume while this volume stays mounted here. */
  volumeInUseErrorForExpansion: boolean;
  /** The last NodeExpandVolume ended with a final error (a changed request is then infeasible on this node). */
  expansionFailedWithFinalError: boolean;
}

export class ActualStateOfWorld extends ChangeSignalledCache implements KubeletActualStateOfWorldUpdater {
  private readonly attachedVolumes = new Map<string, AttachedVolumeEntry>();
  /** volume → pods whose mount was found on disk by reconstruction and not yet mounted again. */
  private readonly foundDuringReconstruction = new Map<string, Set<string>>();

  constructor(
    private readonly nodeName: string,
    private readonly plugins: VolumePluginManager,
  ) {
    super();
  }

  // ---- Attacher updater -----------------------------------------------------------------------

  /**
   * Records the volume as attached (idempotent: an attached volume only takes the new device path).
   * Throws when the spec is missing or no plugin supports it; nothing is recorded then.
   */
  markVolumeAsAttached(volumeName: string, spec: VolumeSpec | undefined, _nodeName: string, devicePath: string): void {
    if (spec === undefined) throw new Error(`markVolumeAsAttached: volume "${volumeName}" needs its spec on a node`);
    this.addVolume(volumeName, spec, devicePath, "True");
  }

  /** A no-op: the kubelet keeps nothing for an uncertain attach. */
  markVolumeAsUncertain(_volumeName: string, _spec: VolumeSpec | undefined, _nodeName: string): void {
    // The kubelet keeps nothing for an uncertain attach: the next pass verifies again.
  }

  /**
   * Forgets the volume (a no-op when it is not attached). Throws an InvariantViolation, changing
   * nothing, while a pod still has it mounted or its device may still be mounted: the volume would
   * be held mounted on a node it is not attached to.
   */
  markVolumeAsDetached(volumeName: string, _nodeName: string): void {
    this.deleteVolume(volumeName);
  }

  /** A no-op on the kubelet. */
  removeVolumeFromReportAsAttached(_volumeName: string, _nodeName: string): void {
    // Only the attach/detach controller reports volumes in node.status.volumesAttached.
  }

  /** A no-op on the kubelet. */
  addVolumeToReportAsAttached(_volumeName: string, _nodeName: string): void {
    // Only the attach/detach controller reports volumes in node.status.volumesAttached.
  }

  // ---- Mounter updater ------------------------------------------------------------------------

  /**
   * Records the pod's mount as mounted (idempotent; the newest options win, and a pending remount
   * is cleared). Throws an InvariantViolation, changing nothing, when the volume is not attached.
   */
  markVolumeAsMounted(options: MarkVolumeOptions): void {
    this.addPodToVolume("markVolumeAsMounted", options);
  }

  /** Records the pod's mount as uncertain; throws as markVolumeAsMounted does. */
  markVolumeMountAsUncertain(options: MarkVolumeOptions): void {
    this.addPodToVolume("markVolumeMountAsUncertain", { ...options, volumeMountState: "VolumeMountUncertain" });
  }

  /**
   * Forgets the pod's mount (idempotent for a pod that has none). Throws an InvariantViolation,
   * changing nothing, when the volume is not attached.
   */
  markVolumeAsUnmounted(podName: string, volumeName: string): void {
    const volume = this.requireVolume(volumeName, "markVolumeAsUnmounted");
    volume.mountedPods.delete(podName);
    this.foundDuringReconstruction.get(volumeName)?.delete(podName);
    this.changed();
  }

  /**
   * Records the device as mounted once for the node. Throws an InvariantViolation, changing
   * nothing, when the volume is not attached (so are the two below).
   */
  markDeviceAsMounted(volumeName: string, devicePath: string, deviceMountPath: string): void {
    this.setDeviceMountState("markDeviceAsMounted", volumeName, "DeviceGloballyMounted", devicePath, deviceMountPath);
  }

  markDeviceAsUncertain(volumeName: string, devicePath: string, deviceMountPath: string): void {
    this.setDeviceMountState("markDeviceAsUncertain", volumeName, "DeviceMountUncertain", devicePath, deviceMountPath);
  }

  /** Also throws while a pod still has the volume mounted: its mount would outlive the device's. */
  markDeviceAsUnmounted(volumeName: string): void {
    this.setDeviceMountState("markDeviceAsUnmounted", volumeName, "DeviceNotMounted", "", "");
  }

  /** Never throws: DeviceNotMounted for an unknown volume (so do the queries below, unless they say otherwise). */
  getDeviceMountState(volumeName: string): DeviceMountState {
    return this.attachedVolumes.get(volumeName)?.deviceMountState ?? "DeviceNotMounted";
  }

  getVolumeMountState(volumeName: string, podName: string): VolumeMountState {
    return this.attachedVolumes.get(volumeName)?.mountedPods.get(podName)?.volumeMountState ?? "VolumeNotMounted";
  }

  /** Uncertain mounts count as mounted until proven otherwise (ReadWriteOncePod). */
  isVolumeMountedElsewhere(volumeName: string, podName: string): boolean {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined) return false;
    for (const pod of volume.mountedPods.values()) {
      if (pod.podName !== podName && pod.volumeMountState !== "VolumeNotMounted") return true;
    }
    return false;
  }

  isVolumeReconstructed(volumeName: string, podName: string): boolean {
    if (this.getVolumeMountState(volumeName, podName) !== "VolumeMountUncertain") return false;
    return this.foundDuringReconstruction.get(volumeName)?.has(podName) ?? false;
  }

  isVolumeDeviceReconstructed(volumeName: string): boolean {
    return this.foundDuringReconstruction.has(volumeName);
  }

  // ---- Reconstruction -------------------------------------------------------------------------

  /**
   * A volume found on disk: attached as far as we know, attachability unknown until node status
   * says. Idempotent; throws (nothing recorded) when no plugin supports the spec.
   */
  addAttachUncertainReconstructedVolume(volumeName: string, spec: VolumeSpec, devicePath: string): void {
    this.addVolume(volumeName, spec, devicePath, "Uncertain");
  }

  /**
   * Records a pod mount found on disk as uncertain, unless the pod's mount is already known (then
   * the live state wins). Returns whether it was recorded; false, changing nothing, for a volume
   * that is not attached. Never throws.
   */
  checkAndMarkVolumeAsUncertainViaReconstruction(options: MarkVolumeOptions): boolean {
    const volume = this.attachedVolumes.get(options.volumeName);
    if (volume === undefined) return false;
    const known = volume.mountedPods.get(options.podName)?.volumeMountState;
    if (known === "VolumeMounted" || known === "VolumeMountUncertain") return false;
    volume.mountedPods.set(options.podName, this.newMountedPod(options, undefined));
    let pods = this.foundDuringReconstruction.get(options.volumeName);
    if (pods === undefined) {
      pods = new Set();
      this.foundDuringReconstruction.set(options.volumeName, pods);
    }
    pods.add(options.podName);
    this.changed();
    return true;
  }

  /**
   * Fills the device path of a reconstructed volume from `node.status.volumesAttached`, while it is
   * still uncertain; a no-op otherwise (unknown volume, device mount settled).
   */
  updateReconstructedDevicePath(volumeName: string, devicePath: string): void {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined || volume.deviceMountState !== "DeviceMountUncertain") return;
    volume.devicePath = devicePath;
    this.changed();
  }

  /** Settles a reconstructed volume's attachability from node status (listed there ⇒ attachable); no-op once settled. */
  updateReconstructedVolumeAttachability(volumeName: string, attachable: boolean): void {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined || volume.pluginIsAttachable !== "Uncertain") return;
    volume.pluginIsAttachable = attachable ? "True" : "False";
    this.changed();
  }

  // ---- Remount --------------------------------------------------------------------------------

  /**
   * Flags the pod's mounts whose plugin refreshes content on every pod sync (secret, configMap, ...).
   * Idempotent; never throws (mounts whose plugin is gone are skipped).
   */
  markRemountRequired(podName: string): void {
    for (const volume of this.attachedVolumes.values()) {
      const pod = volume.mountedPods.get(podName);
      if (pod === undefined || pod.remountRequired) continue;
      // A plugin that is gone (a CSI driver unregistered) has nothing to refresh.
      if (!this.plugins.hasPlugin(volume.pluginName)) continue;
      if (this.plugins.findPluginByName(volume.pluginName).requiresRemount(pod.volumeSpec)) {
        pod.remountRequired = true;
        this.changed();
      }
    }
  }

  /**
   * Flags one pod mount for SetUp again whatever its plugin says (kvol's corrupted-mount repair,
   * corrupted-mounts.ts). Idempotent; false, changing nothing, when the pod does not have the
   * volume mounted.
   */
  markVolumeRemountRequired(podName: string, volumeName: string): boolean {
    const pod = this.attachedVolumes.get(volumeName)?.mountedPods.get(podName);
    if (pod === undefined || pod.volumeMountState !== "VolumeMounted") return false;
    if (!pod.remountRequired) {
      pod.remountRequired = true;
      this.changed();
    }
    return true;
  }

  // ---- Expansion (none throws; an unknown volume is a no-op) -----------------------------------------

  /** Sets the size the filesystem has from the claim's `status.capacity`, once (InitializeClaimSize). */
  initializeClaimSize(volumeName: string, sizeBytes: bigint): void {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined || volume.persistentVolumeSizeBytes !== 0n || sizeBytes <= 0n) return;
    volume.persistentVolumeSizeBytes = sizeBytes;
    this.changed();
  }

  /** NodeExpandVolume grew the filesystem to `sizeBytes` (MarkVolumeAsResized); false for an unknown volume. */
  markVolumeAsResized(volumeName: string, sizeBytes: bigint): boolean {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined) return false;
    volume.persistentVolumeSizeBytes = sizeBytes;
    volume.expansionFailedWithFinalError = false;
    this.changed();
    return true;
  }

  /** The driver cannot grow the volume while it is mounted here: stop asking until it is mounted anew. */
  markForInUseExpansionError(volumeName: string): void {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined || volume.volumeInUseErrorForExpansion) return;
    volume.volumeInUseErrorForExpansion = true;
    this.changed();
  }

  markVolumeExpansionFailedWithFinalError(volumeName: string): void {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume !== undefined) volume.expansionFailedWithFinalError = true;
  }

  checkVolumeInFailedExpansionWithFinalErrors(volumeName: string): boolean {
    return this.attachedVolumes.get(volumeName)?.expansionFailedWithFinalError ?? false;
  }

  // ---- Queries (none throws; an unknown volume or pod reads as absent) ----------------------------

  /** `desiredSizeBytes`: the PV's size the desired state recorded (0 when none): above the current size, a resize is required. */
  podExistsInVolume(podName: string, volumeName: string, desiredSizeBytes = 0n): PodVolumeStatus {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined) return { kind: "notAttached" };
    const pod = volume.mountedPods.get(podName);
    const devicePath = volume.devicePath;
    if (pod === undefined || pod.volumeMountState === "VolumeMountUncertain") return { kind: "notMounted", devicePath };
    if (pod.remountRequired) return { kind: "remountRequired", devicePath };
    if (this.volumeNeedsExpansion(volume, desiredSizeBytes)) {
      return { kind: "resizeRequired", devicePath, currentSizeBytes: volume.persistentVolumeSizeBytes };
    }
    return { kind: "mounted", devicePath };
  }

  /** volumeNeedsExpansion: a known, smaller size, a writable volume, and a plugin that grows filesystems. */
  private volumeNeedsExpansion(volume: AttachedVolumeEntry, desiredSizeBytes: bigint): boolean {
    if (volume.spec.readOnly || volume.volumeInUseErrorForExpansion) return false;
    const current = volume.persistentVolumeSizeBytes;
    if (current === 0n || desiredSizeBytes <= current) return false;
    if (!this.plugins.hasPlugin(volume.pluginName)) return false;
    const plugin = this.plugins.findPluginByName(volume.pluginName);
    return isNodeExpandablePlugin(plugin) && plugin.requiresFSResize();
  }

  /** False while the pod's mount is mounted or uncertain (teardown still has work to do). */
  podRemovedFromVolume(podName: string, volumeName: string): boolean {
    const state = this.getVolumeMountState(volumeName, podName);
    return state !== "VolumeMounted" && state !== "VolumeMountUncertain";
  }

  podHasMountedVolumes(podName: string): boolean {
    return this.someMount((pod) => pod.podName === podName && pod.volumeMountState === "VolumeMounted");
  }

  /**
   * Whether the pod has a mounted (not uncertain) volume under each of `outerVolumeSpecNames`.
   * WaitForAttachAndMount asks it at every retry, so it builds no list.
   */
  podHasVolumesMounted(podName: string, outerVolumeSpecNames: readonly string[]): boolean {
    for (const outerName of outerVolumeSpecNames) {
      if (!this.podHasVolumeMounted(podName, outerName)) return false;
    }
    return true;
  }

  private podHasVolumeMounted(podName: string, outerVolumeSpecName: string): boolean {
    for (const volume of this.attachedVolumes.values()) {
      const pod = volume.mountedPods.get(podName);
      if (pod?.volumeMountState === "VolumeMounted" && pod.outerVolumeSpecName === outerVolumeSpecName) return true;
    }
    return false;
  }

  podHasPossiblyMountedVolumes(podName: string): boolean {
    return this.someMount((pod) => pod.podName === podName);
  }

  volumeExists(volumeName: string): boolean {
    return this.attachedVolumes.has(volumeName);
  }

  volumeExistsWithSpecName(podName: string, specName: string): boolean {
    return this.someMount((pod) => pod.podName === podName && pod.volumeSpec.name() === specName);
  }

  /** Mounts in state VolumeMounted. */
  getMountedVolumes(): KubeletMountedVolume[] {
    return this.collectMounts((pod) => pod.volumeMountState === "VolumeMounted");
  }

  /** Mounted and uncertain mounts: everything teardown may need to undo. */
  getAllMountedVolumes(): KubeletMountedVolume[] {
    return this.collectMounts(() => true);
  }

  getMountedVolumesForPod(podName: string): KubeletMountedVolume[] {
    return this.collectMounts((pod) => pod.podName === podName && pod.volumeMountState === "VolumeMounted");
  }

  getPossiblyMountedVolumesForPod(podName: string): KubeletMountedVolume[] {
    return this.collectMounts((pod) => pod.podName === podName);
  }

  /** The pods whose mount of the volume was found on disk after a restart and not mounted again since. */
  reconstructedPods(volumeName: string): ReadonlySet<string> {
    return this.foundDuringReconstruction.get(volumeName) ?? new Set();
  }

  /** Every attached volume. */
  getAttachedVolumes(): KubeletAttachedVolume[] {
    return [...this.attachedVolumes.values()].map((volume) => this.toAttachedVolume(volume));
  }

  getAttachedVolume(volumeName: string): KubeletAttachedVolume | undefined {
    const volume = this.attachedVolumes.get(volumeName);
    return volume === undefined ? undefined : this.toAttachedVolume(volume);
  }

  /** Attached volumes no pod has mounted: candidates for UnmountDevice and detach. */
  getUnmountedVolumes(): KubeletAttachedVolume[] {
    return [...this.attachedVolumes.values()]
      .filter((volume) => volume.mountedPods.size === 0)
      .map((volume) => this.toAttachedVolume(volume));
  }

  // ---- Internals ------------------------------------------------------------------------------

  private addVolume(volumeName: string, spec: VolumeSpec, devicePath: string, attachability: Attachability): void {
    const existing = this.attachedVolumes.get(volumeName);
    if (existing !== undefined) {
      existing.devicePath = devicePath;
    } else {
      this.attachedVolumes.set(volumeName, {
        volumeName,
        spec,
        pluginName: this.pluginNameFor(spec),
        pluginIsAttachable: attachability,
        deviceMountState: "DeviceNotMounted",
        devicePath,
        deviceMountPath: "",
        mountedPods: new SmallMap(),
        persistentVolumeSizeBytes: 0n,
        volumeInUseErrorForExpansion: false,
        expansionFailedWithFinalError: false,
      });
    }
    this.changed();
  }

  private pluginNameFor(spec: VolumeSpec): string {
    try {
      return this.plugins.findPluginBySpec(spec).name;
    } catch (err) {
      throw new Error(`failed to get Plugin from volumeSpec for volume "${spec.name()}" err=${errorMessage(err)}`, {
        cause: err,
      });
    }
  }

  private deleteVolume(volumeName: string): void {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined) return;
    const key = volumeKey(volumeName);
    invariant(
      volume.mountedPods.size === 0,
      key,
      () => `failed to DeleteVolume "${volumeName}", it still has ${volume.mountedPods.size} mountedPods`,
    );
    invariant(
      volume.deviceMountState === "DeviceNotMounted",
      key,
      () => `marked detached while its device mount state is ${volume.deviceMountState}`,
    );
    this.attachedVolumes.delete(volumeName);
    this.foundDuringReconstruction.delete(volumeName);
    this.changed();
  }

  private addPodToVolume(what: string, options: MarkVolumeOptions): void {
    const volume = this.requireVolume(options.volumeName, what);
    const previous = volume.mountedPods.get(options.podName);
    // The newest options win: a reconstructed mount learns its real outer name and mounter here.
    volume.mountedPods.set(options.podName, this.newMountedPod(options, previous));
    if (options.volumeMountState === "VolumeMounted") {
      this.foundDuringReconstruction.get(options.volumeName)?.delete(options.podName);
    }
    this.changed();
  }

  private newMountedPod(options: MarkVolumeOptions, previous: MountedPod | undefined): MountedPod {
    return {
      podName: options.podName,
      podUID: options.podUID,
      mounter: options.mounter ?? previous?.mounter,
      blockVolumeMapper: options.blockVolumeMapper ?? previous?.blockVolumeMapper,
      volumeSpec: options.volumeSpec,
      outerVolumeSpecName: options.outerVolumeSpecName,
      volumeGidValue: options.volumeGidValue ?? "",
      remountRequired: false,
      volumeMountState: options.volumeMountState,
    };
  }

  private setDeviceMountState(
    what: string,
    volumeName: string,
    state: DeviceMountState,
    devicePath: string,
    deviceMountPath: string,
  ): void {
    const volume = this.requireVolume(volumeName, what);
    invariant(
      state !== "DeviceNotMounted" || volume.mountedPods.size === 0,
      volumeKey(volumeName),
      () => `${what} while ${volume.mountedPods.size} pods still have it mounted`,
    );
    volume.deviceMountState = state;
    volume.deviceMountPath = deviceMountPath;
    if (devicePath !== "") volume.devicePath = devicePath;
    this.changed();
  }

  /** The attached volume; an InvariantViolation for one that is not attached (a mount without an attach). */
  private requireVolume(volumeName: string, what: string): AttachedVolumeEntry {
    const volume = this.attachedVolumes.get(volumeName);
    invariant(
      volume !== undefined,
      volumeKey(volumeName),
      () => `${what}: no volume with the name "${volumeName}" exists in the list of attached volumes`,
    );
    return volume;
  }

  private someMount(match: (pod: MountedPod) => boolean): boolean {
    for (const volume of this.attachedVolumes.values()) {
      for (const pod of volume.mountedPods.values()) if (match(pod)) return true;
    }
    return false;
  }

  private collectMounts(match: (pod: MountedPod) => boolean): KubeletMountedVolume[] {
    const result: KubeletMountedVolume[] = [];
    for (const volume of this.attachedVolumes.values()) {
      for (const pod of volume.mountedPods.values()) {
        if (match(pod)) result.push(this.toMountedVolume(volume, pod));
      }
    }
    return result;
  }

  private toMountedVolume(volume: AttachedVolumeEntry, pod: MountedPod): KubeletMountedVolume {
    return {
      podName: pod.podName,
      podUID: pod.podUID,
      volumeName: volume.volumeName,
      innerVolumeSpecName: pod.volumeSpec.name(),
      outerVolumeSpecName: pod.outerVolumeSpecName,
      pluginName: volume.pluginName,
      volumeSpec: pod.volumeSpec,
      volumeMountState: pod.volumeMountState,
      mounter: pod.mounter,
      blockVolumeMapper: pod.blockVolumeMapper,
      deviceMountPath: volume.deviceMountPath,
    };
  }

  private toAttachedVolume(volume: AttachedVolumeEntry): KubeletAttachedVolume {
    return {
      volumeName: volume.volumeName,
      volumeSpec: volume.spec,
      nodeName: this.nodeName,
      devicePath: volume.devicePath,
      pluginName: volume.pluginName,
      deviceMountPath: volume.deviceMountPath,
      pluginIsAttachable: volume.pluginIsAttachable === "True",
      deviceMountState: volume.deviceMountState,
    };
  }
}

/** How an invariant failure names a volume of this node's actual state. */
function volumeKey(volumeName: string): string {
  return `volume "${volumeName}"`;
}
