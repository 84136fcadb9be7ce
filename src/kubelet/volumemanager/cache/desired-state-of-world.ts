/**
 * The kubelet's desired state of the world (pkg/kubelet/volumemanager/cache/desired_state_of_world.go):
 * every volume that pods on this node want attached and mounted, and which pods want it. The
 * populator fills it from the pod manager; the reconciler reads it every pass.
 *
 * A volume that is attached or mounted once per node (attachable or device-mountable) is one entry
 * shared by all its pods; any other volume is one entry per pod (see volume/unique-names.ts).
 * Errors met while processing a pod are kept here until WaitForAttachAndMount pops them.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { ChangeSignalledCache } from "../../../runtime/change-signal.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { SmallMap } from "../../../runtime/small-map.ts";
import type { VolumeToMount } from "../../../volume/operationexecutor/types.ts";
import { isAttachablePlugin, isDeviceMountablePlugin } from "../../../volume/plugin.ts";
import type { VolumePluginManager } from "../../../volume/plugin-manager.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";
import { uniqueVolumeNameFromSpec, uniqueVolumeNameFromSpecWithPod } from "../../../volume/unique-names.ts";

/** Errors kept per pod; later ones are dropped until the list is popped (Kubernetes' maxPodErrors). */
export const maxPodErrors = 10;

interface PodToMount {
  podName: string;
  pod: Pod;
  volumeSpec: VolumeSpec;
  outerVolumeSpecName: string;
}

interface DesiredVolume {
  volumeName: string;
  pluginIsAttachable: boolean;
  pluginIsDeviceMountable: boolean;
  volumeGidValue: string;
  /** True once the volume was listed in `node.status.volumesInUse` written by this kubelet. */
  reportedInUse: boolean;
  podsToMount: Map<string, PodToMount>;
  /** The PV's `spec.capacity` in bytes (0 when not a claim): what the filesystem should grow to. */
  persistentVolumeSizeBytes: bigint;
}

export class DesiredStateOfWorld extends ChangeSignalledCache {
  private readonly volumes = new Map<string, DesiredVolume>();
  private readonly podErrors = new Map<string, Set<string>>();

  constructor(private readonly plugins: VolumePluginManager) {
    super();
  }

  /**
   * Adds (or refreshes) `pod`'s use of the volume described by `volumeSpec`; returns the volume's
   * unique name. Refreshing replaces the pod object and spec, so a remount sees the pod's new
   * labels and annotations (downward API). Throws, changing nothing, when no plugin supports the
   * spec or the plugin cannot name the volume (the message names the volume and the plugin).
   */
  addPodToVolume(
    podName: string,
    pod: Pod,
    volumeSpec: VolumeSpec,
    outerVolumeSpecName: string,
    volumeGidValue: string,
  ): string {
    let plugin: ReturnType<VolumePluginManager["findPluginBySpec"]>;
    try {
      plugin = this.plugins.findPluginBySpec(volumeSpec);
    } catch (err) {
      throw new Error(
        `failed to get Plugin from volumeSpec for volume "${volumeSpec.name()}" err=${errorMessage(err)}`,
        {
          cause: err,
        },
      );
    }
    // What findAttachablePluginBySpec and findDeviceMountablePluginBySpec say, without finding the plugin twice more.
    const attachable = isAttachablePlugin(plugin) && plugin.canAttach(volumeSpec);
    const deviceMountable = isDeviceMountablePlugin(plugin) && plugin.canDeviceMount(volumeSpec);
    let volumeName: string;
    if (attachable || deviceMountable) {
      try {
        volumeName = uniqueVolumeNameFromSpec(plugin, volumeSpec);
      } catch (err) {
        throw new Error(
          `failed to GetUniqueVolumeNameFromSpec for volumeSpec "${volumeSpec.name()}" using volume plugin "${plugin.name}" err=${errorMessage(err)}`,
          { cause: err },
        );
      }
    } else {
      volumeName = uniqueVolumeNameFromSpecWithPod(podName, plugin, volumeSpec);
    }

    let volume = this.volumes.get(volumeName);
    if (volume === undefined) {
      volume = {
        volumeName,
        pluginIsAttachable: attachable,
        pluginIsDeviceMountable: deviceMountable,
        volumeGidValue,
        reportedInUse: false,
        podsToMount: new SmallMap(),
        persistentVolumeSizeBytes: 0n,
      };
      this.volumes.set(volumeName, volume);
    }
    volume.podsToMount.set(podName, { podName, pod, volumeSpec, outerVolumeSpecName });
    this.changed();
    return volumeName;
  }

  /**
   * Sets ReportedInUse on exactly the volumes listed (the `volumesInUse` the kubelet just wrote).
   * Idempotent; names of volumes no pod wants are ignored.
   */
  markVolumesReportedInUse(reportedVolumes: readonly string[]): void {
    const reported = new Set(reportedVolumes);
    for (const volume of this.volumes.values()) {
      const inUse = reported.has(volume.volumeName);
      if (volume.reportedInUse !== inUse) {
        volume.reportedInUse = inUse;
        this.changed();
      }
    }
  }

  /** Removes the pod from the volume, and the volume once no pod wants it; a no-op when the pod has no such volume. */
  deletePodFromVolume(podName: string, volumeName: string): void {
    const volume = this.volumes.get(volumeName);
    if (volume === undefined || !volume.podsToMount.delete(podName)) return;
    if (volume.podsToMount.size === 0) this.volumes.delete(volumeName);
    this.changed();
  }

  /** Records the PV's size (UpdatePersistentVolumeSize); a no-op for a volume no pod wants. */
  updatePersistentVolumeSize(volumeName: string, sizeBytes: bigint): void {
    const volume = this.volumes.get(volumeName);
    if (volume === undefined || volume.persistentVolumeSizeBytes === sizeBytes) return;
    volume.persistentVolumeSizeBytes = sizeBytes;
    this.changed();
  }

  /**
   * Used when a CSI driver stops requiring attach: the volume is then verified, not attached.
   * Idempotent; a no-op for a volume no pod wants.
   */
  markVolumeAttachability(volumeName: string, attachable: boolean): void {
    const volume = this.volumes.get(volumeName);
    if (volume === undefined || volume.pluginIsAttachable === attachable) return;
    volume.pluginIsAttachable = attachable;
    this.changed();
  }

  // Queries never throw: an unknown volume or pod reads as absent.

  volumeExists(volumeName: string): boolean {
    return this.volumes.has(volumeName);
  }

  podExistsInVolume(podName: string, volumeName: string): boolean {
    return this.volumes.get(volumeName)?.podsToMount.has(podName) ?? false;
  }

  /** True when the pod wants a volume whose spec name (PV name, or inline volume name) is `specName`. */
  volumeExistsWithSpecName(podName: string, specName: string): boolean {
    for (const volume of this.volumes.values()) {
      if (volume.podsToMount.get(podName)?.volumeSpec.name() === specName) return true;
    }
    return false;
  }

  /** Pods with at least one volume to mount. */
  getPods(): Set<string> {
    const pods = new Set<string>();
    for (const volume of this.volumes.values()) for (const podName of volume.podsToMount.keys()) pods.add(podName);
    return pods;
  }

  /** One entry per (volume, pod); `devicePath` is left empty (it comes from the actual state). */
  getVolumesToMount(): VolumeToMount[] {
    const result: VolumeToMount[] = [];
    for (const volume of this.volumes.values()) {
      for (const pod of volume.podsToMount.values()) {
        result.push({
          volumeName: volume.volumeName,
          podName: pod.podName,
          pod: pod.pod,
          volumeSpec: pod.volumeSpec,
          outerVolumeSpecName: pod.outerVolumeSpecName,
          pluginIsAttachable: volume.pluginIsAttachable,
          pluginIsDeviceMountable: volume.pluginIsDeviceMountable,
          devicePath: "",
          reportedInUse: volume.reportedInUse,
          volumeGidValue: volume.volumeGidValue,
          desiredPersistentVolumeSizeBytes: volume.persistentVolumeSizeBytes,
        });
      }
    }
    return result;
  }

  /** Keeps `message` for the pod (deduplicated; beyond `maxPodErrors` it is dropped, never an error). */
  addErrorToPod(podName: string, message: string): void {
    let errors = this.podErrors.get(podName);
    if (errors === undefined) {
      errors = new Set();
      this.podErrors.set(podName, errors);
    }
    if (errors.size < maxPodErrors) errors.add(message);
  }

  /** Returns the pod's errors, sorted, and forgets them; [] for a pod without errors. */
  popPodErrors(podName: string): string[] {
    const errors = this.podErrors.get(podName);
    if (errors === undefined) return [];
    this.podErrors.delete(podName);
    return [...errors].sort();
  }

  /** Pods with errors kept; never throws. */
  getPodsWithErrors(): string[] {
    return [...this.podErrors.keys()];
  }
}
