/**
 * Whether a volume may be attached to several nodes at once (Kubernetes' IsMultiAttachAllowed,
 * spec §2.8). It decides the attach/detach key — `(vol, "", node)` when allowed, `(vol, "", "")`
 * (one operation per volume cluster-wide) when not — and the controller's Multi-Attach refusal.
 */
import type { VolumeSpec } from "../spec.ts";

export function isMultiAttachAllowed(spec: VolumeSpec | undefined): boolean {
  if (spec === undefined) return true;
  const inline = spec.volume;
  if (inline !== undefined) return inline.azureDisk === undefined && inline.cinder === undefined;
  if (spec.persistentVolume === undefined) return true;
  const modes = spec.accessModes();
  if (modes.length === 0) return true;
  return modes.includes("ReadWriteMany") || modes.includes("ReadOnlyMany");
}
