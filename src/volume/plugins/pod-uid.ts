/** The pod's UID, which names its directory under `pods/`; a pod without one cannot have volumes. */
import type { Pod } from "kubernetes-types/core/v1.js";

export function podUIDOf(pod: Pod): string {
  const uid = pod.metadata?.uid;
  if (!uid) {
    throw new Error(`pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""} has no metadata.uid`);
  }
  return uid;
}
