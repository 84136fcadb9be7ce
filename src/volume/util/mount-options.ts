/**
 * Mount options from a PV (Kubernetes' volumeutil.MountOptionFromSpec / JoinMountOptions): the
 * beta annotation wins over `spec.mountOptions`; the plugin's own options (`ro`) are merged in,
 * duplicates dropped and the result sorted, as Go's string set lists them.
 */
import type { VolumeSpec } from "../spec.ts";

const mountOptionsAnnotation = "volume.beta.kubernetes.io/mount-options";

export function joinMountOptions(userOptions: readonly string[], systemOptions: readonly string[]): string[] {
  const all = new Set<string>();
  for (const option of userOptions) if (option.length > 0) all.add(option);
  for (const option of systemOptions) all.add(option);
  return [...all].sort();
}

export function mountOptionsFromSpec(spec: VolumeSpec, ...options: string[]): string[] {
  const pv = spec.persistentVolume;
  if (pv === undefined) return options;
  const annotated = pv.metadata?.annotations?.[mountOptionsAnnotation];
  if (annotated !== undefined) return joinMountOptions(annotated.split(","), options);
  const specOptions = pv.spec?.mountOptions ?? [];
  if (specOptions.length > 0) return joinMountOptions(specOptions, options);
  return options;
}
