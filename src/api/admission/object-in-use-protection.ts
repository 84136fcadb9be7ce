/**
 * StorageObjectInUseProtection: every new claim gets `kubernetes.io/pvc-protection` and every new
 * volume `kubernetes.io/pv-protection` at admission, so neither can vanish while in use even
 * before the protection controllers have seen it (they add the finalizer too, for older objects).
 */
import type { KObject } from "../objects.ts";
import type { ResourceType } from "../resources.ts";

const pvcProtectionFinalizer = "kubernetes.io/pvc-protection";
const pvProtectionFinalizer = "kubernetes.io/pv-protection";

function protectionFinalizer(type: ResourceType): string | undefined {
  if (type.kind === "PersistentVolumeClaim") return pvcProtectionFinalizer;
  if (type.kind === "PersistentVolume") return pvProtectionFinalizer;
  return undefined;
}

export function withProtectionFinalizer(type: ResourceType, object: KObject): KObject {
  const finalizer = protectionFinalizer(type);
  const finalizers = object.metadata?.finalizers ?? [];
  if (finalizer === undefined || finalizers.includes(finalizer)) return object;
  return { ...object, metadata: { ...object.metadata, finalizers: [...finalizers, finalizer] } };
}
