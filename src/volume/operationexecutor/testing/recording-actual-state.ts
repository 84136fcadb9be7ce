/**
 * A plain-map actual state of the world implementing both updater interfaces, for tests of the
 * operation executor and of its callers: it records every call in order so a test can assert what
 * an operation told its caller, and answers the state queries from what it was told. It refuses
 * what the kubelet's actual state refuses (kubelet/volumemanager/cache/actual-state-of-world.ts):
 * marking a volume detached while a pod still mounts it throws the same InvariantViolation, and the
 * refused call changes nothing (it is still recorded in `calls`).
 */
import { invariant } from "../../../runtime/assert.ts";
import type { VolumeSpec } from "../../spec.ts";
import type {
  DeviceMountState,
  KubeletActualStateOfWorldUpdater,
  MarkVolumeOptions,
  VolumeMountState,
} from "../types.ts";

interface RecordedAttachment {
  devicePath: string;
  state: "attached" | "uncertain";
  reported: boolean;
}

export class RecordingActualState implements KubeletActualStateOfWorldUpdater {
  /** Every updater call, as `<method> <volume> [<node or pod>]`. */
  readonly calls: string[] = [];
  /** `<volume>@<node>` → attachment. */
  readonly attachments = new Map<string, RecordedAttachment>();
  readonly devices = new Map<string, DeviceMountState>();
  /** `<volume>@<pod>` → mount state. */
  readonly mounts = new Map<string, VolumeMountState>();
  readonly reconstructed = new Set<string>();

  markVolumeAsAttached(volumeName: string, _spec: VolumeSpec | undefined, nodeName: string, devicePath: string): void {
    this.calls.push(`markVolumeAsAttached ${volumeName} ${nodeName}`);
    this.attachments.set(`${volumeName}@${nodeName}`, { devicePath, state: "attached", reported: true });
  }

  markVolumeAsUncertain(volumeName: string, _spec: VolumeSpec | undefined, nodeName: string): void {
    this.calls.push(`markVolumeAsUncertain ${volumeName} ${nodeName}`);
    const previous = this.attachments.get(`${volumeName}@${nodeName}`);
    this.attachments.set(`${volumeName}@${nodeName}`, {
      devicePath: previous?.devicePath ?? "",
      state: "uncertain",
      reported: false,
    });
  }

  markVolumeAsDetached(volumeName: string, nodeName: string): void {
    this.calls.push(`markVolumeAsDetached ${volumeName} ${nodeName}`);
    const mountedPods = [...this.mounts.keys()].filter((key) => key.startsWith(`${volumeName}@`)).length;
    invariant(
      mountedPods === 0,
      `volume "${volumeName}"`,
      () => `failed to DeleteVolume "${volumeName}", it still has ${mountedPods} mountedPods`,
    );
    this.attachments.delete(`${volumeName}@${nodeName}`);
  }

  removeVolumeFromReportAsAttached(volumeName: string, nodeName: string): void {
    this.calls.push(`removeVolumeFromReportAsAttached ${volumeName} ${nodeName}`);
    const attachment = this.attachments.get(`${volumeName}@${nodeName}`);
    if (attachment !== undefined) attachment.reported = false;
  }

  addVolumeToReportAsAttached(volumeName: string, nodeName: string): void {
    this.calls.push(`addVolumeToReportAsAttached ${volumeName} ${nodeName}`);
    const attachment = this.attachments.get(`${volumeName}@${nodeName}`);
    if (attachment !== undefined) attachment.reported = true;
  }

  markVolumeAsMounted(options: MarkVolumeOptions): void {
    this.calls.push(`markVolumeAsMounted ${options.volumeName} ${options.podName}`);
    this.mounts.set(`${options.volumeName}@${options.podName}`, "VolumeMounted");
  }

  markVolumeMountAsUncertain(options: MarkVolumeOptions): void {
    this.calls.push(`markVolumeMountAsUncertain ${options.volumeName} ${options.podName}`);
    this.mounts.set(`${options.volumeName}@${options.podName}`, "VolumeMountUncertain");
  }

  markVolumeAsUnmounted(podName: string, volumeName: string): void {
    this.calls.push(`markVolumeAsUnmounted ${volumeName} ${podName}`);
    this.mounts.delete(`${volumeName}@${podName}`);
  }

  markDeviceAsMounted(volumeName: string): void {
    this.calls.push(`markDeviceAsMounted ${volumeName}`);
    this.devices.set(volumeName, "DeviceGloballyMounted");
  }

  markDeviceAsUncertain(volumeName: string): void {
    this.calls.push(`markDeviceAsUncertain ${volumeName}`);
    this.devices.set(volumeName, "DeviceMountUncertain");
  }

  markDeviceAsUnmounted(volumeName: string): void {
    this.calls.push(`markDeviceAsUnmounted ${volumeName}`);
    this.devices.set(volumeName, "DeviceNotMounted");
  }

  getDeviceMountState(volumeName: string): DeviceMountState {
    return this.devices.get(volumeName) ?? "DeviceNotMounted";
  }

  getVolumeMountState(volumeName: string, podName: string): VolumeMountState {
    return this.mounts.get(`${volumeName}@${podName}`) ?? "VolumeNotMounted";
  }

  isVolumeMountedElsewhere(volumeName: string, podName: string): boolean {
    for (const [key, state] of this.mounts) {
      const [volume, pod] = key.split("@");
      if (volume === volumeName && pod !== podName && state !== "VolumeNotMounted") return true;
    }
    return false;
  }

  isVolumeReconstructed(volumeName: string, podName: string): boolean {
    return this.reconstructed.has(`${volumeName}@${podName}`);
  }

  isVolumeDeviceReconstructed(volumeName: string): boolean {
    return this.reconstructed.has(volumeName);
  }

  /** Sizes recorded by markVolumeAsResized, by volume. */
  readonly resizedBytes = new Map<string, bigint>();
  readonly inUseExpansionErrors = new Set<string>();
  readonly finalExpansionErrors = new Set<string>();

  markVolumeAsResized(volumeName: string, sizeBytes: bigint): boolean {
    this.resizedBytes.set(volumeName, sizeBytes);
    this.finalExpansionErrors.delete(volumeName);
    return true;
  }

  markForInUseExpansionError(volumeName: string): void {
    this.inUseExpansionErrors.add(volumeName);
  }

  markVolumeExpansionFailedWithFinalError(volumeName: string): void {
    this.finalExpansionErrors.add(volumeName);
  }

  checkVolumeInFailedExpansionWithFinalErrors(volumeName: string): boolean {
    return this.finalExpansionErrors.has(volumeName);
  }
}
