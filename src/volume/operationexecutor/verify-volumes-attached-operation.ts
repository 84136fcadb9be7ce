/**
 * `verify_volumes_are_attached_per_node` (spec §2.7): asks each attachable plugin whether the
 * node's volumes are still attached and forgets those that are not. Plugins answer from their own
 * source of truth (the disk provider, the VolumeAttachment informer), never with one API call per
 * volume. A plugin that cannot answer is logged and its volumes are left as they are.
 */

import { errorMessage } from "../../runtime/error-message.ts";
import type { AttachableVolumePlugin } from "../plugin.ts";
import type { VolumeSpec } from "../spec.ts";
import type { OperationFunc } from "./nested-pending-operations.ts";
import type { OperationContext } from "./operation-context.ts";
import type { ActualStateOfWorldAttacherUpdater, AttachedVolume } from "./types.ts";

interface PluginBatch {
  plugin: AttachableVolumePlugin;
  specs: VolumeSpec[];
  /** Spec name → unique volume name, to translate the plugin's answer back. */
  volumeNames: Map<string, string>;
}

function batchByPlugin(context: OperationContext, volumes: readonly AttachedVolume[]): Map<string, PluginBatch> {
  const batches = new Map<string, PluginBatch>();
  for (const volume of volumes) {
    const spec = volume.volumeSpec;
    if (spec === undefined) continue;
    let plugin: AttachableVolumePlugin | undefined;
    try {
      plugin = context.plugins.findAttachablePluginBySpec(spec);
    } catch (err) {
      context.logger.warn("VolumesAreAttached.FindAttachablePluginBySpec failed", {
        volume: volume.volumeName,
        error: errorMessage(err),
      });
      continue;
    }
    if (plugin === undefined) continue;
    let batch = batches.get(plugin.name);
    if (batch === undefined) {
      batch = { plugin, specs: [], volumeNames: new Map() };
      batches.set(plugin.name, batch);
    }
    batch.specs.push(spec);
    batch.volumeNames.set(spec.name(), volume.volumeName);
  }
  return batches;
}

export function verifyVolumesAreAttachedOperation(
  context: OperationContext,
  volumes: readonly AttachedVolume[],
  nodeName: string,
  asw: ActualStateOfWorldAttacherUpdater,
): OperationFunc {
  return async () => {
    for (const batch of batchByPlugin(context, volumes).values()) {
      let answers: Map<string, boolean>;
      try {
        answers = await batch.plugin.newAttacher().volumesAreAttached(batch.specs, nodeName);
      } catch (err) {
        context.logger.error("VolumesAreAttached failed", {
          plugin: batch.plugin.name,
          node: nodeName,
          error: errorMessage(err),
        });
        continue;
      }
      for (const [specName, attached] of answers) {
        const volumeName = batch.volumeNames.get(specName);
        if (attached || volumeName === undefined) continue;
        asw.markVolumeAsDetached(volumeName, nodeName);
        context.logger.info(
          `VerifyVolumesAreAttached determined volume "${volumeName}" (spec.Name: "${specName}") is no longer attached to node "${nodeName}", therefore it was marked as detached.`,
        );
      }
    }
  };
}
