/**
 * The plugin label of Kubernetes' volume metrics (GetFullQualifiedPluginNameForVolume): the
 * plugin's name, qualified with the driver for CSI (`kubernetes.io/csi:<driver>`), so one CSI
 * driver's volumes can be told from another's.
 */
import { csiPluginName } from "./paths.ts";

/** The qualified plugin name of a volume from its unique name (`<plugin>/<volume>`). */
export function qualifiedPluginName(uniqueVolumeName: string): string {
  const csiPrefix = `${csiPluginName}/`;
  if (uniqueVolumeName.startsWith(csiPrefix)) {
    const driver = uniqueVolumeName.slice(csiPrefix.length).split("^")[0] ?? "";
    return `${csiPluginName}:${driver}`;
  }
  const [domain, plugin] = uniqueVolumeName.split("/");
  return plugin === undefined ? (domain ?? "") : `${domain}/${plugin}`;
}
