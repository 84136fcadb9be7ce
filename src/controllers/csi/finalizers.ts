/**
 * Finalizer names and list edits shared by both sidecars. The attacher's finalizer embeds the
 * driver name made safe for a finalizer (external-attacher `SanitizeDriverName`): every character
 * outside `[a-zA-Z0-9-]` becomes `-`, and a name that would end in `-` gets an `X` appended.
 */
import type { ObjectMeta } from "../../api/objects.ts";
import { attacherFinalizerPrefix } from "./constants.ts";

const unsafeFinalizerCharacters = /[^a-zA-Z0-9-]/g;

export function sanitizeDriverName(driverName: string): string {
  const sanitized = driverName.replace(unsafeFinalizerCharacters, "-");
  return sanitized.endsWith("-") ? `${sanitized}X` : sanitized;
}

/** `external-attacher/<sanitized driver>`, on VolumeAttachments and on their PersistentVolumes. */
export function attacherFinalizerFor(driverName: string): string {
  return `${attacherFinalizerPrefix}${sanitizeDriverName(driverName)}`;
}

export function hasFinalizer(object: { metadata?: ObjectMeta }, finalizer: string): boolean {
  return object.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** The finalizer list without `finalizer`; undefined when nothing would be left (Go writes nil). */
export function finalizersWithout(object: { metadata?: ObjectMeta }, finalizer: string): string[] | undefined {
  const remaining = (object.metadata?.finalizers ?? []).filter((name) => name !== finalizer);
  return remaining.length === 0 ? undefined : remaining;
}

/** The finalizer list with `finalizer` appended, unless it is there already. */
export function finalizersWith(object: { metadata?: ObjectMeta }, finalizer: string): string[] {
  const current = object.metadata?.finalizers ?? [];
  return current.includes(finalizer) ? [...current] : [...current, finalizer];
}
