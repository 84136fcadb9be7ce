/**
 * How a PV names a simulated cloud disk. Kubernetes has no volume source for "a disk of kvol's
 * simulated provider", and inventing a field would make manifests invalid for a real API server,
 * so kvol uses the generic `flexVolume` source, which every Kubernetes validates:
 *
 *   flexVolume:
 *     driver: kvol.io/sim-disk
 *     fsType: ext4            # optional, ext4 by default
 *     readOnly: false
 *     options:
 *       diskId: disk-1234     # the provider's disk id (required)
 *
 * Only this plugin claims `flexVolume` with that driver; kvol has no FlexVolume plugin otherwise.
 */
import type { FlexPersistentVolumeSource, FlexVolumeSource } from "kubernetes-types/core/v1.js";
import { pluginGlobalMapPath, pluginGlobalMountDir } from "../../paths.ts";
import type { VolumeSpec } from "../../spec.ts";

export const simDiskPluginName = "kvol.io/sim-disk";
export const simDiskDriverName = "kvol.io/sim-disk";
export const simDiskIdOption = "diskId";

interface SimDiskInfo {
  diskId: string;
  fsType: string;
  readOnly: boolean;
}

function flexSource(spec: VolumeSpec): FlexVolumeSource | FlexPersistentVolumeSource | undefined {
  const source = spec.volume?.flexVolume ?? spec.persistentVolume?.spec?.flexVolume;
  return source?.driver === simDiskDriverName ? source : undefined;
}

export function isSimDiskSpec(spec: VolumeSpec): boolean {
  return flexSource(spec) !== undefined;
}

export function simDiskInfo(spec: VolumeSpec): SimDiskInfo {
  const source = flexSource(spec);
  if (source === undefined) throw new Error(`volume "${spec.name()}" is not a ${simDiskDriverName} flexVolume`);
  const diskId = source.options?.[simDiskIdOption] ?? "";
  if (diskId === "") {
    throw new Error(
      `volume "${spec.name()}": flexVolume.options.${simDiskIdOption} is required for driver ${simDiskDriverName} (the provider's disk id)`,
    );
  }
  return {
    diskId,
    fsType: source.fsType ?? "",
    readOnly:
      spec.volume?.flexVolume !== undefined ? (source.readOnly ?? false) : spec.readOnly || (source.readOnly ?? false),
  };
}

/** `plugins/kvol.io/sim-disk/mounts/<disk id>`: the per-node mount. */
export function simDiskGlobalMountDir(rootDir: string, diskId: string): string {
  return pluginGlobalMountDir(rootDir, simDiskPluginName, diskId);
}

/** `plugins/kvol.io/sim-disk/volumeDevices/<disk id>`: the raw block global map path. */
export function simDiskGlobalMapPath(rootDir: string, diskId: string): string {
  return pluginGlobalMapPath(rootDir, simDiskPluginName, diskId);
}
