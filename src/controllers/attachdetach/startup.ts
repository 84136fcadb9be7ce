/**
 * Rebuilding both states of the world from the API after a (re)start (spec §2.4), before any loop
 * runs, so a restarted controller neither forgets an attachment nor attaches twice:
 * 1. every `node.status.volumesAttached` entry is attached (spec unknown yet), `volumesInUse` says
 *    what each node still uses, and managed nodes join the DSW;
 * 2. every VolumeAttachment whose volume the ASW does not know is Uncertain (an attach was in
 *    flight, or a detach did not finish) — it will be detached or attached again;
 * 3. every pod's volumes are added to the DSW, and attached volumes get their spec back.
 */
import type { Node, PersistentVolume, Pod } from "kubernetes-types/core/v1.js";
import type { VolumeAttachment } from "kubernetes-types/storage/v1.js";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { VolumePluginManager } from "../../volume/plugin-manager.ts";
import { VolumeSpec } from "../../volume/spec.ts";
import { uniqueVolumeNameFromSpec } from "../../volume/unique-names.ts";
import type { ActualStateOfWorld } from "./cache/actual-state-of-world.ts";
import type { DesiredStateOfWorld } from "./cache/desired-state-of-world.ts";
import { controllerManagedAttachAnnotation, keepTerminatedPodVolumesAnnotation } from "./constants.ts";
import { attachableVolumesOf, type PodVolumeContext, processPodVolumes, shouldAddVolumes } from "./pod-volumes.ts";

export interface StartupContext {
  asw: ActualStateOfWorld;
  dsw: DesiredStateOfWorld;
  plugins: VolumePluginManager;
  podVolumes: PodVolumeContext;
  logger: Logger;
  cachedNode: (name: string) => Node | undefined;
  cachedPersistentVolume: (name: string) => PersistentVolume | undefined;
}

/** Manages the node when its annotation says so (Kubernetes never un-manages a node). */
export function addNodeToDesiredState(dsw: DesiredStateOfWorld, node: Node): void {
  const annotations = node.metadata?.annotations ?? {};
  if (!(controllerManagedAttachAnnotation in annotations)) return;
  dsw.addNode(node.metadata?.name ?? "", annotations[keepTerminatedPodVolumesAnnotation] === "true");
}

/** A scheduled pod's volumes join (or, once it terminated, leave) the DSW. */
export function podAdded(pod: Pod, podVolumes: PodVolumeContext): void {
  if (!pod.spec?.nodeName) return;
  processPodVolumes(pod, shouldAddVolumes(pod, podVolumes.dsw), podVolumes);
}

export function populateActualStateFromNodes(context: StartupContext, nodes: readonly Node[]): void {
  for (const node of nodes) {
    const nodeName = node.metadata?.name ?? "";
    for (const attached of node.status?.volumesAttached ?? []) {
      context.asw.markVolumeAsAttached(attached.name, undefined, nodeName, attached.devicePath);
    }
    context.asw.setVolumesMountedByNode(nodeName, node.status?.volumesInUse ?? []);
    addNodeToDesiredState(context.dsw, node);
  }
}

export function populateActualStateFromVolumeAttachments(
  context: StartupContext,
  attachments: readonly VolumeAttachment[],
): void {
  for (const attachment of attachments) {
    const nodeName = attachment.spec?.nodeName ?? "";
    const pvName = attachment.spec?.source?.persistentVolumeName;
    if (pvName === undefined) continue;
    const pv = context.cachedPersistentVolume(pvName);
    if (pv === undefined) {
      context.logger.warn("Unable to lookup pv object", { pv: pvName, volumeAttachment: attachment.metadata?.name });
      continue;
    }
    const spec = VolumeSpec.fromPersistentVolume(pv);
    try {
      const plugin = context.plugins.findAttachablePluginBySpec(spec);
      if (plugin === undefined) continue;
      const volumeName = uniqueVolumeNameFromSpec(plugin, spec);
      if (context.asw.getAttachState(volumeName, nodeName) !== "Detached") continue;
      context.logger.info("Marking volume attachment as uncertain as volume is not attached", {
        volume: volumeName,
        node: nodeName,
      });
      context.asw.markVolumeAsUncertain(volumeName, spec, nodeName);
    } catch (err) {
      context.logger.warn("Skipping processing the volume on node", {
        pv: pvName,
        node: nodeName,
        error: errorMessage(err),
      });
    }
  }
}

export function populateDesiredState(context: StartupContext, pods: readonly Pod[]): void {
  for (const pod of pods) {
    podAdded(pod, context.podVolumes);
    const nodeName = pod.spec?.nodeName ?? "";
    if (nodeName === "") continue;
    for (const { volumeName, spec } of attachableVolumesOf(pod, context.podVolumes)) {
      if (context.asw.getAttachState(volumeName, nodeName) !== "Attached") continue;
      const reported = context
        .cachedNode(nodeName)
        ?.status?.volumesAttached?.find((entry) => entry.name === volumeName);
      if (reported === undefined) continue;
      context.asw.markVolumeAsAttached(volumeName, spec, nodeName, reported.devicePath);
    }
  }
}
