/**
 * What callers hand the operation executor, and the small interfaces through which operations
 * record their outcome in the caller's actual state of the world (Kubernetes'
 * ActualStateOfWorldAttacherUpdater and ActualStateOfWorldMounterUpdater). The attach/detach
 * controller implements the attacher updater; the kubelet's ASW implements both (the kubelet marks
 * volumes attached after VerifyControllerAttachedVolume).
 *
 * Updater methods are synchronous and throw on a programming error (unknown volume or pod); an
 * operation that catches such a throw reports it as its own failure.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { BlockVolumeMapper, MounterArgs, VolumeMounter } from "../plugin.ts";
import type { VolumeSpec } from "../spec.ts";

// ---------------------------------------------------------------------------------------------
// Requests

/** A (volume, node) the attach/detach controller wants attached (its DSW entry). */
export interface VolumeToAttach {
  /** Unique volume name, `<plugin>/<volume name>`. */
  volumeName: string;
  volumeSpec: VolumeSpec;
  nodeName: string;
  /** Pods scheduled to the node that use the volume: attach events go to each of them. */
  scheduledPods: readonly Pod[];
  /** Set once the Multi-Attach events were emitted for this entry. */
  multiAttachErrorReported: boolean;
}

/**
 * A volume attached to a node, as the controller's ASW (detach, verify) or the kubelet's ASW
 * (unmount device, unmap device) knows it.
 */
export interface AttachedVolume {
  volumeName: string;
  /** Unknown after an attach/detach controller restart: detach then works from the unique name alone. */
  volumeSpec: VolumeSpec | undefined;
  nodeName: string;
  /** The device path reported by attach (`node.status.volumesAttached[].devicePath`). */
  devicePath: string;
  /** Kubelet only: the plugin that mounted the device (UnmountDevice looks the plugin up by name). */
  pluginName?: string;
  /** Kubelet only: where the device is mounted once per node (UnmountDevice's target). */
  deviceMountPath?: string;
}

/** A pod volume the kubelet wants mounted (its DSW entry joined with what its ASW knows). */
export interface VolumeToMount {
  volumeName: string;
  /** Unique pod name: the pod UID. */
  podName: string;
  pod: Pod;
  volumeSpec: VolumeSpec;
  /** The pod's name for the volume (`pod.spec.volumes[].name`). */
  outerVolumeSpecName: string;
  pluginIsAttachable: boolean;
  pluginIsDeviceMountable: boolean;
  /** From `node.status.volumesAttached` (or "" until known). */
  devicePath: string;
  /** True once the volume appeared in `node.status.volumesInUse` written by this kubelet. */
  reportedInUse: boolean;
  /** The `pv.beta.kubernetes.io/gid` annotation, kept with the mount. */
  volumeGidValue?: string;
  /** fsGroup, fsUser and size passed to SetUp. */
  mounterArgs?: MounterArgs;
  /** The PV's size in bytes (0 or absent when not a claim): what NodeExpandVolume grows the filesystem to. */
  desiredPersistentVolumeSizeBytes?: bigint;
}

/** A pod volume the kubelet's ASW records as mounted (or uncertain) and wants unmounted. */
export interface MountedVolume {
  podName: string;
  podUID: string;
  volumeName: string;
  /** The spec name (PV name, or pod volume name inline): the pod volume directory's name. */
  innerVolumeSpecName: string;
  outerVolumeSpecName: string;
  pluginName: string;
  volumeSpec: VolumeSpec;
  /** The pod name for messages (`metadata.name`); the UID when unknown. */
  podDisplayName?: string;
}

// ---------------------------------------------------------------------------------------------
// States

export type DeviceMountState = "DeviceNotMounted" | "DeviceMountUncertain" | "DeviceGloballyMounted";
export type VolumeMountState = "VolumeNotMounted" | "VolumeMountUncertain" | "VolumeMounted";

// ---------------------------------------------------------------------------------------------
// Updaters

/** How attach, detach and verify operations record their outcome. */
export interface ActualStateOfWorldAttacherUpdater {
  /** Confirmed attached with `devicePath`; to be reported in `node.status.volumesAttached`. */
  markVolumeAsAttached(volumeName: string, spec: VolumeSpec | undefined, nodeName: string, devicePath: string): void;
  /** Attach or detach ended in an error: maybe attached, not reported, must be detached or attached again. */
  markVolumeAsUncertain(volumeName: string, spec: VolumeSpec | undefined, nodeName: string): void;
  /** Detached (or found not attached): forgotten, and no longer reported. */
  markVolumeAsDetached(volumeName: string, nodeName: string): void;
  /** Stops reporting the volume in the node's status (before a detach starts). */
  removeVolumeFromReportAsAttached(volumeName: string, nodeName: string): void;
  /** Reports the volume again (a detach could not start). */
  addVolumeToReportAsAttached(volumeName: string, nodeName: string): void;
}

/** What MarkVolumeAsMounted / MarkVolumeMountAsUncertain record about a pod's mount. */
export interface MarkVolumeOptions {
  podName: string;
  podUID: string;
  volumeName: string;
  /** Filesystem volumes: the mounter that set it up (TearDown later uses the plugin by name). */
  mounter?: VolumeMounter;
  /** Block volumes: the mapper that mapped it. */
  blockVolumeMapper?: BlockVolumeMapper;
  outerVolumeSpecName: string;
  volumeGidValue?: string;
  volumeSpec: VolumeSpec;
  volumeMountState: VolumeMountState;
}

/** How mount, unmount, map and unmap operations record their outcome in the kubelet's ASW. */
export interface ActualStateOfWorldMounterUpdater {
  markVolumeAsMounted(options: MarkVolumeOptions): void;
  markVolumeMountAsUncertain(options: MarkVolumeOptions): void;
  markVolumeAsUnmounted(podName: string, volumeName: string): void;
  markDeviceAsMounted(volumeName: string, devicePath: string, deviceMountPath: string): void;
  markDeviceAsUncertain(volumeName: string, devicePath: string, deviceMountPath: string): void;
  markDeviceAsUnmounted(volumeName: string): void;
  getDeviceMountState(volumeName: string): DeviceMountState;
  getVolumeMountState(volumeName: string, podName: string): VolumeMountState;
  /** Another pod mounts the volume (uncertain counts as mounted): the ReadWriteOncePod check. */
  isVolumeMountedElsewhere(volumeName: string, podName: string): boolean;
  /** The pod's mount was found on disk after a restart: a final error must leave it uncertain. */
  isVolumeReconstructed(volumeName: string, podName: string): boolean;
  /** Same for the device mount. */
  isVolumeDeviceReconstructed(volumeName: string): boolean;
  /** NodeExpandVolume grew the filesystem to `sizeBytes`; false when the volume is unknown. */
  markVolumeAsResized(volumeName: string, sizeBytes: bigint): boolean;
  /** The driver cannot grow it while mounted here (FailedPrecondition): no more tries until mounted anew. */
  markForInUseExpansionError(volumeName: string): void;
  markVolumeExpansionFailedWithFinalError(volumeName: string): void;
  checkVolumeInFailedExpansionWithFinalErrors(volumeName: string): boolean;
}

/** The kubelet's ASW is both. */
export interface KubeletActualStateOfWorldUpdater
  extends ActualStateOfWorldAttacherUpdater,
    ActualStateOfWorldMounterUpdater {}
