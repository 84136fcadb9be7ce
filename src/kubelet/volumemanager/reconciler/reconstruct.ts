/**
 * Reconstruction after a kubelet restart (reconstruct_common.go, reconstruct.go; spec §3.10): every
 * volume directory under `<root>/pods` becomes an ASW entry again — the volume "attached" with an
 * unknown device path, each pod's mount Uncertain, the device mount Uncertain when the plugin mounts
 * devices or maps blocks. The reconciler then mounts again what pods still want (idempotently) and
 * tears down the rest. A directory whose volume cannot be rebuilt is kept aside for `cleanupMounts`.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { errorMessage } from "../../../runtime/error-message.ts";
import type { Logger } from "../../../runtime/logger.ts";
import type { BlockVolumeMapper, DeviceMounter, VolumeMounter } from "../../../volume/plugin.ts";
import type { VolumePluginManager } from "../../../volume/plugin-manager.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";
import { uniqueVolumeNameFromSpec, uniqueVolumeNameFromSpecWithPod } from "../../../volume/unique-names.ts";
import type { NodeVolumeContext } from "../../../volume/volume-host.ts";
import type { ActualStateOfWorld } from "../cache/actual-state-of-world.ts";
import { type PodVolumeDir, volumesFromPodsDir } from "../pod-volume-dirs.ts";

/** One pod's volume rebuilt from its directory. */
interface ReconstructedPodVolume {
  volumeName: string;
  podUID: string;
  volumeSpec: VolumeSpec;
  mounter: VolumeMounter | undefined;
  blockVolumeMapper: BlockVolumeMapper | undefined;
  deviceMounter: DeviceMounter | undefined;
}

interface ReconstructionResult {
  /** Unique names added to the ASW: their device paths and attachability come from node status. */
  reconstructedVolumeNames: string[];
  /** Directories whose volume could not be rebuilt: unmounted once no pod wants them. */
  volumesFailedReconstruction: PodVolumeDir[];
}

interface ReconstructionContext {
  plugins: VolumePluginManager;
  node: NodeVolumeContext;
  asw: ActualStateOfWorld;
  logger: Logger;
}

async function reconstructVolume(plugins: VolumePluginManager, dir: PodVolumeDir): Promise<ReconstructedPodVolume> {
  const plugin = plugins.findPluginByName(dir.pluginName);
  const pod: Pod = { metadata: { uid: dir.podUID } };
  const mapperPlugin = plugins.findMapperPluginByName(dir.pluginName);
  const block = dir.volumeMode === "Block";
  if (block && mapperPlugin === undefined) {
    throw new Error(
      `could not find block volume plugin "${dir.pluginName}" (spec.Name: "${dir.volumeSpecName}") pod "${dir.podUID}" (UID: "${dir.podUID}")`,
    );
  }
  const volumeSpec =
    block && mapperPlugin !== undefined
      ? await mapperPlugin.constructBlockVolumeSpec(dir.podUID, dir.volumeSpecName, dir.volumePath)
      : (await plugin.constructVolumeSpec(dir.volumeSpecName, dir.volumePath)).spec;
  // By spec, not by name: an inline CSI volume of an attachable driver is neither attached nor staged.
  const deviceMountable = plugins.findDeviceMountablePluginBySpec(volumeSpec);
  const attachable = plugins.findAttachablePluginBySpec(volumeSpec);
  const volumeName =
    deviceMountable !== undefined || attachable !== undefined
      ? uniqueVolumeNameFromSpec(plugin, volumeSpec)
      : uniqueVolumeNameFromSpecWithPod(dir.podUID, plugin, volumeSpec);
  if (block && mapperPlugin !== undefined) {
    return {
      volumeName,
      podUID: dir.podUID,
      volumeSpec,
      mounter: undefined,
      blockVolumeMapper: mapperPlugin.newBlockVolumeMapper(volumeSpec, pod),
      deviceMounter: undefined,
    };
  }
  return {
    volumeName,
    podUID: dir.podUID,
    volumeSpec,
    mounter: plugin.newMounter(volumeSpec, pod),
    blockVolumeMapper: undefined,
    deviceMounter: deviceMountable?.newDeviceMounter(),
  };
}

/** Where the device of a reconstructed volume is mounted (block: its global map path). */
async function deviceMountPathOf(volume: ReconstructedPodVolume): Promise<string | undefined> {
  if (volume.blockVolumeMapper !== undefined) return volume.blockVolumeMapper.getGlobalMapPath(volume.volumeSpec);
  if (volume.deviceMounter !== undefined) return volume.deviceMounter.getDeviceMountPath(volume.volumeSpec);
  return undefined;
}

/** Records one volume (all its pods) in the ASW as uncertain. */
async function addToActualState(
  context: ReconstructionContext,
  volumeName: string,
  pods: readonly ReconstructedPodVolume[],
): Promise<void> {
  const { asw, logger } = context;
  const first = pods[0];
  if (first === undefined) return;
  asw.addAttachUncertainReconstructedVolume(volumeName, first.volumeSpec, "");
  for (const pod of pods) {
    asw.checkAndMarkVolumeAsUncertainViaReconstruction({
      podName: pod.podUID,
      podUID: pod.podUID,
      volumeName,
      ...(pod.mounter === undefined ? {} : { mounter: pod.mounter }),
      ...(pod.blockVolumeMapper === undefined ? {} : { blockVolumeMapper: pod.blockVolumeMapper }),
      // The outer name is not on disk; the desired state supplies the real one when the pod mounts again.
      outerVolumeSpecName: pod.volumeSpec.name(),
      volumeSpec: pod.volumeSpec,
      volumeMountState: "VolumeMountUncertain",
    });
    logger.info("Volume is marked as uncertain and added into the actual state", { pod: pod.podUID, volumeName });
  }
  const deviceMountPath = await deviceMountPathOf(first);
  if (deviceMountPath === undefined) return;
  asw.markDeviceAsUncertain(volumeName, "", deviceMountPath);
  logger.info("Volume is marked device as uncertain and added into the actual state", { volumeName, deviceMountPath });
}

export async function reconstructVolumes(context: ReconstructionContext): Promise<ReconstructionResult> {
  const { asw, logger, node } = context;
  const result: ReconstructionResult = { reconstructedVolumeNames: [], volumesFailedReconstruction: [] };
  let dirs: PodVolumeDir[];
  try {
    dirs = await volumesFromPodsDir(node.host, node.rootDir);
  } catch (err) {
    logger.error("Cannot get volumes from disk, skip sync states for volume reconstruction", {
      error: errorMessage(err),
    });
    return result;
  }
  const byVolume = new Map<string, ReconstructedPodVolume[]>();
  for (const dir of dirs) {
    if (asw.volumeExistsWithSpecName(dir.podUID, dir.volumeSpecName)) continue;
    try {
      const volume = await reconstructVolume(context.plugins, dir);
      const pods = byVolume.get(volume.volumeName) ?? [];
      pods.push(volume);
      byVolume.set(volume.volumeName, pods);
    } catch (err) {
      logger.info("Could not construct volume information", {
        pod: dir.podUID,
        volumeSpecName: dir.volumeSpecName,
        error: errorMessage(err),
      });
      result.volumesFailedReconstruction.push(dir);
    }
  }
  for (const [volumeName, pods] of byVolume) {
    try {
      await addToActualState(context, volumeName, pods);
      result.reconstructedVolumeNames.push(volumeName);
    } catch (err) {
      logger.error("Could not add volume information to actual state of world", {
        volumeName,
        error: errorMessage(err),
      });
    }
  }
  logger.info("Volume reconstruction finished", { volumes: result.reconstructedVolumeNames.length });
  return result;
}
