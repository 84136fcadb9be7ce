/**
 * The kubelet's pod manager: the pods bound to this node as last seen from the API server, by uid.
 * It is fed by the node's pod informer and read by the pod workers and the volume manager.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { PodManager } from "../volumemanager/pod-sources.ts";

export class BoundPodManager implements PodManager {
  private readonly pods = new Map<string, Pod>();
  private readonly changeListeners: (() => void)[] = [];

  /** Calls `listener` after every add, update or removal (the volume populator parks until one). */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  getPods(): readonly Pod[] {
    return [...this.pods.values()];
  }

  getPodByUID(uid: string): Pod | undefined {
    return this.pods.get(uid);
  }

  /** Records the latest version of a pod (add or update). */
  setPod(pod: Pod): void {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    this.pods.set(uid, pod);
    this.notifyChange();
  }

  removePod(pod: Pod): void {
    const uid = pod.metadata?.uid;
    if (uid && this.pods.delete(uid)) this.notifyChange();
  }

  private notifyChange(): void {
    for (const listener of this.changeListeners) listener();
  }
}
