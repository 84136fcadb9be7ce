/**
 * What the volume manager needs to know about pods from the rest of the kubelet (Kubernetes passes
 * the pod manager, the pod workers as PodStateProvider, and the config's SourcesReady).
 */
import type { Pod } from "kubernetes-types/core/v1.js";

/** The kubelet's pod manager: the pods bound to this node, as last seen from the API server. */
export interface PodManager {
  getPods(): readonly Pod[];
  getPodByUID(uid: string): Pod | undefined;
  /** Calls `listener` after every change; without it the populator cannot park and runs every period. */
  onChange?(listener: () => void): void;
}

/** The pod workers' view of each pod's lifecycle. */
export interface PodStateProvider {
  /** True once the pod is terminating or terminated: no container may start any more. */
  shouldPodContainersBeTerminating(uid: string): boolean;
  /** True once no container of the pod runs (or the pod is unknown to the workers). */
  shouldPodRuntimeBeRemoved(uid: string): boolean;
  /** Calls `listener` after every change of either answer; without it the populator runs every period. */
  onChange?(listener: () => void): void;
}

/** True once every pod source (the API server) has delivered its first full list. */
export interface SourcesReady {
  allReady(): boolean;
}
