/**
 * The class of a volume or claim as Kubernetes reads it: the beta annotation first (objects
 * written before `storageClassName` existed), then the field.
 */
import type { ObjectMeta } from "../objects.ts";

const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";

export function storageClassOf(object: { metadata?: ObjectMeta; spec?: { storageClassName?: string } }): string {
  return object.metadata?.annotations?.[betaStorageClassAnnotation] ?? object.spec?.storageClassName ?? "";
}
