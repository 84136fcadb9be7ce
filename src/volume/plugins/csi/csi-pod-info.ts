/**
 * The pod information the kubelet adds to the volume context of NodePublishVolume when the
 * driver's CSIDriver says `podInfoOnMount: true` (csi_mounter.go getPodInfoAttrs).
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { ephemeralLifecycleMode, podInfoKey } from "./csi-constants.ts";
import { type CsiPluginApi, driverWantsPodInfo } from "./csi-driver-policy.ts";

function podInfoAttributes(pod: Pod, lifecycleMode: string): Record<string, string> {
  return {
    [podInfoKey.podName]: pod.metadata?.name ?? "",
    [podInfoKey.podNamespace]: pod.metadata?.namespace ?? "",
    [podInfoKey.podUID]: pod.metadata?.uid ?? "",
    [podInfoKey.serviceAccountName]: pod.spec?.serviceAccountName ?? "",
    [podInfoKey.ephemeral]: String(lifecycleMode === ephemeralLifecycleMode),
  };
}

/** The volume attributes of the PV, plus the pod's information when the driver asks for it. */
export function publishVolumeContext(
  api: CsiPluginApi,
  driverName: string,
  attributes: Readonly<Record<string, string>> | undefined,
  pod: Pod,
  lifecycleMode: string,
): Record<string, string> {
  const context = { ...attributes };
  return driverWantsPodInfo(api, driverName) ? { ...context, ...podInfoAttributes(pod, lifecycleMode) } : context;
}
