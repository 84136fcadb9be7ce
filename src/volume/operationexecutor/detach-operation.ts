/**
 * `volume_detach` (spec §2.9). With `verifySafeToDetach` the live Node is read first and the detach
 * refused while the node still lists the volume in `status.volumesInUse` (a missing Node skips the
 * check). Any failure — the refusal included — leaves the volume Uncertain: it is no longer
 * reported attached and must be attached again before it is. Success forgets the attachment.
 * Without a spec (after a controller restart) the plugin is found from the unique name.
 */
import { isApiError } from "../../api/errors.ts";
import type { AttachableVolumePlugin } from "../plugin.ts";
import { splitUniqueName } from "../unique-names.ts";
import type { OperationFunc } from "./nested-pending-operations.ts";
import type { OperationContext } from "./operation-context.ts";
import { attachedSubject } from "./subjects.ts";
import type { ActualStateOfWorldAttacherUpdater, AttachedVolume } from "./types.ts";
import { type VolumeMessageSubject, VolumeOperationError } from "./volume-messages.ts";

/** The error verifySafeToDetach gives while the node still uses the volume. */
const volumeStillInUseText = "volume is still in use by node, according to Node status";

interface DetachTarget {
  plugin: AttachableVolumePlugin;
  /** The plugin's own volume name (the unique name without the plugin prefix). */
  pluginVolumeName: string;
}

function detachTarget(context: OperationContext, volume: AttachedVolume, subject: VolumeMessageSubject): DetachTarget {
  if (volume.volumeSpec !== undefined) {
    const plugin = context.plugins.findAttachablePluginBySpec(volume.volumeSpec);
    if (plugin === undefined) {
      throw new VolumeOperationError(
        "DetachVolume.findDetachablePluginBySpec failed",
        subject,
        new Error("no attachable volume plugin matched"),
      );
    }
    return { plugin, pluginVolumeName: plugin.getVolumeName(volume.volumeSpec) };
  }
  const { pluginName, volumeName } = splitUniqueName(volume.volumeName);
  const plugin = context.plugins.findAttachablePluginByName(pluginName);
  if (plugin === undefined) {
    throw new VolumeOperationError(
      "DetachVolume.FindAttachablePluginByName failed",
      subject,
      new Error(`volume plugin ${pluginName} is not attachable`),
    );
  }
  return { plugin, pluginVolumeName: volumeName };
}

async function verifyVolumeIsSafeToDetach(
  context: OperationContext,
  volume: AttachedVolume,
  subject: VolumeMessageSubject,
): Promise<void> {
  let inUse: readonly string[];
  try {
    inUse = (await context.nodes.get("", volume.nodeName)).status?.volumesInUse ?? [];
  } catch (err) {
    if (isApiError(err, "NotFound")) {
      context.logger.info("Node not found on API server. DetachVolume will skip safe to detach check", {
        node: volume.nodeName,
        volume: volume.volumeName,
      });
      return;
    }
    throw new VolumeOperationError("DetachVolume failed fetching node from API server", subject, err);
  }
  if (inUse.includes(volume.volumeName)) {
    throw new VolumeOperationError("DetachVolume failed", subject, new Error(volumeStillInUseText));
  }
}

export function detachOperation(
  context: OperationContext,
  volume: AttachedVolume,
  verifySafeToDetach: boolean,
  asw: ActualStateOfWorldAttacherUpdater,
): OperationFunc {
  const subject = attachedSubject(volume);
  return async () => {
    const target = detachTarget(context, volume, subject);
    try {
      if (verifySafeToDetach) await verifyVolumeIsSafeToDetach(context, volume, subject);
      await target.plugin.newDetacher().detach(target.pluginVolumeName, volume.nodeName);
    } catch (err) {
      asw.markVolumeAsUncertain(volume.volumeName, volume.volumeSpec, volume.nodeName);
      throw err instanceof VolumeOperationError
        ? err
        : new VolumeOperationError("DetachVolume.Detach failed", subject, err);
    }
    context.logger.info(`DetachVolume.Detach succeeded for volume ${volume.volumeName} from node ${volume.nodeName}`, {
      volume: volume.volumeName,
      node: volume.nodeName,
    });
    asw.markVolumeAsDetached(volume.volumeName, volume.nodeName);
  };
}
