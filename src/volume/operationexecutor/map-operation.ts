/**
 * `map_volume` for a raw block volume (spec §5.10): wait for the attach, let the plugin set the
 * device up (CSI NodeStage) and publish it for the pod (CSI NodePublish), then map it into the pod
 * (`../block/map-block-volume.ts`). Failures become `FailedMapVolume` events; success emits the two
 * `SuccessfulMountVolume` events Kubernetes emits.
 */
import { evalSymlinks } from "../../host/mount/eval-symlinks.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import { mapBlockVolume } from "../block/map-block-volume.ts";
import type { BlockVolumeMapper } from "../plugin.ts";
import { blockPathContext } from "./block-context.ts";
import { markDeviceErrorState, markVolumeErrorState } from "./error-state.ts";
import type { MountRequest } from "./mount-operation.ts";
import type { OperationFunc } from "./nested-pending-operations.ts";
import { type OperationContext, VolumeEventReason } from "./operation-context.ts";
import { step } from "./operation-step.ts";
import { mountSubject } from "./subjects.ts";
import type { MarkVolumeOptions } from "./types.ts";
import { simpleVolumeMessage, type VolumeMessageSubject, VolumeOperationError } from "./volume-messages.ts";

const emptyDevicePathText = "Device path of the volume is empty";

async function waitForAttachIfAttachable(
  context: OperationContext,
  request: MountRequest,
  subject: VolumeMessageSubject,
): Promise<string> {
  const { volume } = request;
  const attachable = context.plugins.findAttachablePluginBySpec(volume.volumeSpec);
  if (attachable === undefined) return volume.devicePath;
  return step("MapVolume.WaitForAttach failed", subject, () =>
    attachable
      .newAttacher()
      .waitForAttach(volume.volumeSpec, volume.devicePath, volume.pod, request.waitForAttachTimeoutMs),
  );
}

/** SetUpDevice (when the plugin has one) and the device record in the ASW; returns the global map path. */
async function setUpDevice(
  request: MountRequest,
  mapper: BlockVolumeMapper,
  devicePath: string,
  subject: VolumeMessageSubject,
): Promise<string> {
  const { volume, asw } = request;
  const globalMapPath = await step("MapVolume.GetGlobalMapPath failed", subject, () =>
    mapper.getGlobalMapPath(volume.volumeSpec),
  );
  if (mapper.setUpDevice !== undefined) {
    try {
      await mapper.setUpDevice();
    } catch (err) {
      markDeviceErrorState(asw, volume.volumeName, devicePath, globalMapPath, err);
      throw new VolumeOperationError("MapVolume.SetUpDevice failed", subject, err);
    }
  }
  await step("MapVolume.MarkDeviceAsMounted failed", subject, () =>
    asw.markDeviceAsMounted(volume.volumeName, devicePath, globalMapPath),
  );
  return globalMapPath;
}

/** MapPodDevice (when the plugin has one), then the bind mount, link and loop device of the common mapping. */
async function mapIntoPod(
  context: OperationContext,
  request: MountRequest,
  mapper: BlockVolumeMapper,
  attachedDevicePath: string,
  globalMapPath: string,
  subject: VolumeMessageSubject,
): Promise<void> {
  const { volume, asw } = request;
  const options: MarkVolumeOptions = {
    podName: volume.podName,
    podUID: volume.podName,
    volumeName: volume.volumeName,
    blockVolumeMapper: mapper,
    outerVolumeSpecName: volume.outerVolumeSpecName,
    volumeSpec: volume.volumeSpec,
    volumeMountState: "VolumeMounted",
  };
  let devicePath = attachedDevicePath;
  if (mapper.mapPodDevice !== undefined) {
    try {
      const published = await mapper.mapPodDevice();
      if (published !== "") devicePath = published;
    } catch (err) {
      markVolumeErrorState(asw, options, err);
      throw new VolumeOperationError("MapVolume.MapPodDevice failed", subject, err);
    }
  }
  if (devicePath === "") throw new VolumeOperationError("MapVolume failed", subject, new Error(emptyDevicePathText));
  const blockContext = await step("MapVolume.MapBlockVolume failed", subject, () =>
    blockPathContext(context, "MapVolume"),
  );
  const resolved = await step("MapVolume.EvalHostSymlinks failed", subject, () =>
    evalSymlinks(blockContext.host, devicePath),
  );
  const { dir, linkName } = mapper.getPodDeviceMapPath();
  const paths = { globalMapPath, podDeviceMapPath: dir, volumeMapName: linkName, podUID: volume.podName };
  try {
    await mapBlockVolume(blockContext, resolved, paths);
  } catch (err) {
    markVolumeErrorState(asw, options, err);
    throw new VolumeOperationError("MapVolume.MapBlockVolume failed", subject, err);
  }
  for (const where of [`globalMapPath ${goQuote(globalMapPath)}`, `volumeMapPath ${goQuote(dir)}`]) {
    const message = simpleVolumeMessage("MapVolume.MapPodDevice succeeded", subject, where);
    context.recorder.event(volume.pod, "Normal", VolumeEventReason.successfulMountVolume, message);
  }
  await step("MapVolume.MarkVolumeAsMounted failed", subject, () => asw.markVolumeAsMounted(options));
}

export function mapOperation(context: OperationContext, request: MountRequest): OperationFunc {
  const { volume } = request;
  const subject = mountSubject(volume);
  return async () => {
    try {
      const plugin = await step("MapVolume.FindMapperPluginBySpec failed", subject, () => {
        const found = context.plugins.findMapperPluginBySpec(volume.volumeSpec);
        if (found === undefined) throw new Error(`no block volume plugin matched volume "${volume.volumeSpec.name()}"`);
        return found;
      });
      const mapper = await step("MapVolume.NewBlockVolumeMapper initialization failed", subject, () =>
        plugin.newBlockVolumeMapper(volume.volumeSpec, volume.pod),
      );
      const devicePath = await waitForAttachIfAttachable(context, request, subject);
      const globalMapPath = await setUpDevice(request, mapper, devicePath, subject);
      await mapIntoPod(context, request, mapper, devicePath, globalMapPath, subject);
    } catch (err) {
      if (err instanceof VolumeOperationError) {
        context.recorder.event(volume.pod, "Warning", VolumeEventReason.failedMapVolume, err.eventMessage);
      }
      throw err;
    }
  };
}
