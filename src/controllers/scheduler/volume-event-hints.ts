/**
 * Kubernetes' queueing hints of the volume plugins (VolumeBinding, VolumeRestrictions,
 * NodeVolumeLimits), reduced to what kvol's placement checks: which waiting pods a claim or volume
 * event can help. A claim added or changed helps only the pods that use it. A volume with a claimRef
 * can be bound to, or is bound to, that claim only, so it helps only the pods using that claim; a
 * volume without one (available, or just released) may fit any unbound claim, so it helps every pod.
 * Waking only these pods keeps an add of N claims and volumes from costing N × pending pods.
 */
import type { Indexer } from "../../api/informer/indexer.ts";
import { podsByClaim } from "../../api/informer/indexes.ts";
import type { PersistentVolume, PersistentVolumeClaim, Pod } from "../../api/objects.ts";
import { objectKey } from "../../api/objects.ts";

/** The `namespace/name` keys of the pods to wake, or every waiting pod. */
export type WokenPods = readonly string[] | "all";

export function podsHelpedByClaim(pods: Indexer<Pod>, claim: PersistentVolumeClaim): WokenPods {
  return podsUsing(pods, objectKey(claim));
}

/** `before` is the volume as it was, for an update. */
export function podsHelpedByVolume(
  pods: Indexer<Pod>,
  volume: PersistentVolume,
  before: PersistentVolume | undefined,
): WokenPods {
  const versions = before === undefined ? [volume] : [before, volume];
  const woken: string[] = [];
  for (const version of versions) {
    const claimRef = version.spec?.claimRef;
    if (claimRef?.name === undefined) return "all";
    woken.push(...podsUsing(pods, `${claimRef.namespace ?? ""}/${claimRef.name}`));
  }
  return woken;
}

function podsUsing(pods: Indexer<Pod>, claimKey: string): string[] {
  return pods.byIndex(podsByClaim.name, claimKey).map((pod) => objectKey(pod));
}
