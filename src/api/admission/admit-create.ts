/**
 * The mutating admission kube-apiserver applies to a create, for the plugins that change what
 * the storage loops see. It runs in the store, so an object created through the in-process client
 * (the simulator) and one created over HTTP come out the same.
 *
 * - DefaultTolerationSeconds: pods get 300 s tolerations for the not-ready and unreachable taints.
 *
 * The protection finalizers (StorageObjectInUseProtection) are added by the pvc/pv protection
 * controllers, which Kubernetes also runs; adding them here too would only change who writes first.
 */

import type { KindName, KObject, Pod } from "../objects.ts";
import { DEFAULT_TIMERS } from "../timers.ts";
import { type DefaultTolerationSeconds, withDefaultTolerations } from "./default-tolerations.ts";

export interface AdmissionConfig {
  defaultTolerationSeconds: DefaultTolerationSeconds;
}

export const DEFAULT_ADMISSION: Readonly<AdmissionConfig> = Object.freeze({
  defaultTolerationSeconds: {
    notReadySeconds: DEFAULT_TIMERS.defaultNotReadyTolerationSeconds,
    unreachableSeconds: DEFAULT_TIMERS.defaultUnreachableTolerationSeconds,
  },
});

/** The object as admission leaves it (the same object when no plugin changes it). */
export function admitCreate(kind: KindName, object: KObject, config: AdmissionConfig = DEFAULT_ADMISSION): KObject {
  if (kind !== "Pod") return object;
  return withDefaultTolerations(object as Pod, config.defaultTolerationSeconds) as KObject;
}
