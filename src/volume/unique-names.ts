/**
 * Unique volume names: the key under which the desired and actual states of the world track a
 * volume (spec §5.2). A volume that is attached or mounted once per node is one volume however many
 * pods use it (`<plugin>/<volume name>`); any other volume belongs to one pod
 * (`<plugin>/<pod uid>-<spec name>`).
 */

import { errorMessage } from "../runtime/error-message.ts";
import type { VolumePlugin } from "./plugin.ts";
import type { VolumeSpec } from "./spec.ts";

/** `<pluginName>/<volumeName>`. */
export function uniqueVolumeName(pluginName: string, volumeName: string): string {
  return `${pluginName}/${volumeName}`;
}

/** The name of an attachable or device-mountable volume, shared by every pod that uses it. */
export function uniqueVolumeNameFromSpec(plugin: VolumePlugin, spec: VolumeSpec): string {
  let volumeName: string;
  try {
    volumeName = plugin.getVolumeName(spec);
  } catch (err) {
    throw new Error(
      `failed to GetVolumeName from volumePlugin for volumeSpec "${spec.name()}" err=${errorMessage(err)}`,
      { cause: err },
    );
  }
  if (volumeName === "") {
    throw new Error(`failed to GetVolumeName from volumePlugin for volumeSpec "${spec.name()}" err=<nil>`);
  }
  return uniqueVolumeName(plugin.name, volumeName);
}

/** The per-pod name of a volume that is neither attachable nor device-mountable. */
export function uniqueVolumeNameFromSpecWithPod(podUID: string, plugin: VolumePlugin, spec: VolumeSpec): string {
  return `${plugin.name}/${podUID}-${spec.name()}`;
}

/**
 * Splits `namespace/plugin/volume` into the plugin name (`namespace/plugin`) and the volume name.
 * Used when only the unique name is left, e.g. to detach after the attach/detach controller restarted.
 */
export function splitUniqueName(uniqueName: string): { pluginName: string; volumeName: string } {
  const first = uniqueName.indexOf("/");
  const second = first < 0 ? -1 : uniqueName.indexOf("/", first + 1);
  if (second < 0) {
    throw new Error(`cannot split volume unique name ${uniqueName} to plugin/volume components`);
  }
  return { pluginName: uniqueName.slice(0, second), volumeName: uniqueName.slice(second + 1) };
}
