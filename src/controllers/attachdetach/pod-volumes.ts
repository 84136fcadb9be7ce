/**
 * Adds a scheduled pod's attachable volumes to the desired state of the world, or removes them
 * (Kubernetes' ProcessPodVolumes and DetermineVolumeAction). Pods on nodes the controller does not
 * manage are ignored; volumes whose plugin cannot attach them (nfs, CSI with attachRequired=false)
 * are skipped; a volume that cannot be resolved yet (claim unbound) is skipped until a later event.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { VolumePluginManager } from "../../volume/plugin-manager.ts";
import type { VolumeSpec } from "../../volume/spec.ts";
import { uniqueVolumeNameFromSpec } from "../../volume/unique-names.ts";
import type { DesiredStateOfWorld } from "./cache/desired-state-of-world.ts";
import { isPodTerminated } from "./pod-terminated.ts";
import { type VolumeSpecListers, volumeSpecFromPod } from "./volume-spec-from-pod.ts";

export interface PodVolumeContext {
  dsw: DesiredStateOfWorld;
  plugins: VolumePluginManager;
  listers: VolumeSpecListers;
  logger: Logger;
}

/** An attachable volume of a pod: its unique name and spec. */
interface AttachableVolume {
  volumeName: string;
  spec: VolumeSpec;
}

/** Whether a pod's volumes should be in the DSW: not once it terminated, unless the node keeps them. */
export function shouldAddVolumes(pod: Pod, dsw: DesiredStateOfWorld): boolean {
  if (!isPodTerminated(pod)) return true;
  return dsw.keepTerminatedPodVolumesForNode(pod.spec?.nodeName ?? "");
}

/** Whether the plugin for `spec` attaches it; a spec no plugin accepts counts as not attachable. */
export function isAttachableVolume(plugins: VolumePluginManager, spec: VolumeSpec): boolean {
  try {
    return plugins.findAttachablePluginBySpec(spec) !== undefined;
  } catch {
    return false;
  }
}

/** The pod's volumes that the controller attaches; unresolvable ones are logged and skipped. */
export function attachableVolumesOf(pod: Pod, context: Omit<PodVolumeContext, "dsw">): AttachableVolume[] {
  const found: AttachableVolume[] = [];
  for (const podVolume of pod.spec?.volumes ?? []) {
    try {
      const spec = volumeSpecFromPod(pod, podVolume, context.listers);
      const plugin = context.plugins.findAttachablePluginBySpec(spec);
      if (plugin === undefined) continue;
      found.push({ volumeName: uniqueVolumeNameFromSpec(plugin, spec), spec });
    } catch (err) {
      context.logger.debug("Error processing volume for pod", {
        pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`,
        volume: podVolume.name,
        error: errorMessage(err),
      });
    }
  }
  return found;
}

/** Adds (`add`) or removes the pod's attachable volumes on its node. */
export function processPodVolumes(pod: Pod, add: boolean, context: PodVolumeContext): void {
  const nodeName = pod.spec?.nodeName ?? "";
  const podUID = pod.metadata?.uid ?? "";
  if (nodeName === "" || (pod.spec?.volumes ?? []).length === 0) return;
  if (!context.dsw.nodeExists(nodeName)) return;
  for (const { volumeName, spec } of attachableVolumesOf(pod, context)) {
    if (add) context.dsw.addPod(podUID, pod, volumeName, spec, nodeName);
    else context.dsw.deletePod(podUID, volumeName, nodeName);
  }
}
