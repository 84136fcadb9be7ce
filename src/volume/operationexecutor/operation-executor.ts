/**
 * The operation executor (Kubernetes' pkg/volume/util/operationexecutor), shared by the
 * attach/detach controller and the kubelet's volume manager: each method generates one operation
 * and runs it under its key (spec §4.2) in the nested pending operations, so at most one
 * operation runs per colliding key and failures back off (500 ms doubling to 2 min 2 s).
 *
 * Every method returns at once: `undefined` when the operation started, otherwise why it did not
 * (AlreadyExistsError, ExponentialBackoffError — test with `isExpectedError` and stay silent — or
 * a pre-check refusal). The outcome arrives through the updater the caller passes, which is how
 * reconcilers see it on their next pass. `waitForIdle()` waits for running operations (tests,
 * shutdown).
 *
 * Who calls what:
 * - attach/detach controller: attachVolume, detachVolume, verifyVolumesAreAttachedPerNode,
 *   isOperationPending / isOperationSafeToRetry with the keys of `attachDetachKey`.
 * - kubelet: verifyControllerAttachedVolume, mountVolume (maps Block volumes), expandInUseVolume, unmountVolume
 *   (unmaps Block volumes), unmountDevice (unmaps Block devices), and — only without a controller —
 *   attachVolume / detachVolume with verifySafeToDetach=false.
 */
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import type { VolumePluginManager } from "../plugin-manager.ts";
import type { VolumeSpec } from "../spec.ts";
import type { NodeVolumeContext } from "../volume-host.ts";
import { attachOperation } from "./attach-operation.ts";
import { detachOperation } from "./detach-operation.ts";
import { expandInUseOperation } from "./expand-in-use-operation.ts";
import { mapOperation } from "./map-operation.ts";
import { mountOperation } from "./mount-operation.ts";
import { isMultiAttachAllowed } from "./multi-attach.ts";
import { NestedPendingOperations, type OperationFunc } from "./nested-pending-operations.ts";
import type { NodeGetter, OperationContext, VolumeEventRecorder } from "./operation-context.ts";
import { emptyNodeName, emptyPodName, emptyVolumeName, type OperationTarget, operationKey } from "./operation-key.ts";
import { storageOperationHistogram, timedOperation } from "./operation-metrics.ts";
import { OperationName } from "./operation-names.ts";
import type {
  ActualStateOfWorldAttacherUpdater,
  ActualStateOfWorldMounterUpdater,
  AttachedVolume,
  MountedVolume,
  VolumeToAttach,
  VolumeToMount,
} from "./types.ts";
import { unmapDeviceOperation, unmapOperation } from "./unmap-operations.ts";
import { unmountDeviceOperation } from "./unmount-device-operation.ts";
import { unmountOperation } from "./unmount-operation.ts";
import { notYetInNodeStatus, verifyControllerAttachedVolumeOperation } from "./verify-controller-attached-operation.ts";
import { verifyVolumesAreAttachedOperation } from "./verify-volumes-attached-operation.ts";

interface OperationExecutorOptions {
  plugins: VolumePluginManager;
  /** The component's event recorder (`attachdetach-controller`, `kubelet`). */
  recorder: VolumeEventRecorder;
  /** `client.nodes`: the live reads of verifySafeToDetach and VerifyControllerAttachedVolume. */
  nodes: NodeGetter;
  clock: Clock;
  logger: Logger;
  /** Kubelet only: the node operations run on (subPath cleanup, block mapping, device-in-use check). */
  node?: NodeVolumeContext;
  /** Kubelet only: this node from the informer (node affinity, the "not yet in node's status" pre-check). */
  cachedNode?: OperationContext["cachedNode"];
  /** Kubelet only: live claim reads and status writes for node expansion. */
  claims?: OperationContext["claims"];
  /** Where storage_operation_duration_seconds is observed (the component's registry). */
  metrics?: Metrics;
}

/**
 * The key attach and detach run under (spec §4.2): `(vol, "", node)` when the volume may be attached
 * to several nodes, `(vol, "", "")` — one operation per volume cluster-wide — otherwise.
 */
export function attachDetachKey(volumeName: string, spec: VolumeSpec | undefined, nodeName: string): OperationTarget {
  return { volumeName, podName: emptyPodName, nodeName: isMultiAttachAllowed(spec) ? nodeName : emptyNodeName };
}

/**
 * The key a mount or map runs under: `(vol, "", "")` for attachable or device-mountable volumes, so
 * a mount waits for UnmountDevice of the same volume; `(vol, pod, "")` otherwise (pods in parallel).
 */
function mountKey(volume: VolumeToMount): OperationTarget {
  const perVolume = volume.pluginIsAttachable || volume.pluginIsDeviceMountable;
  return { volumeName: volume.volumeName, podName: perVolume ? emptyPodName : volume.podName, nodeName: emptyNodeName };
}

export class OperationExecutor {
  readonly pendingOperations: NestedPendingOperations;
  private readonly context: OperationContext;
  private readonly durations: ReturnType<typeof storageOperationHistogram> | undefined;

  constructor(options: OperationExecutorOptions) {
    this.pendingOperations = new NestedPendingOperations({ clock: options.clock, logger: options.logger });
    this.durations = options.metrics === undefined ? undefined : storageOperationHistogram(options.metrics);
    this.context = {
      plugins: options.plugins,
      recorder: options.recorder,
      nodes: options.nodes,
      clock: options.clock,
      logger: options.logger,
      ...(options.node === undefined ? {} : { node: options.node }),
      ...(options.cachedNode === undefined ? {} : { cachedNode: options.cachedNode }),
      ...(options.claims === undefined ? {} : { claims: options.claims }),
    };
  }

  /** Attaches `volume.volumeSpec` to `volume.nodeName` (`volume_attach`). */
  attachVolume(volume: VolumeToAttach, asw: ActualStateOfWorldAttacherUpdater): Error | undefined {
    const key = attachDetachKey(volume.volumeName, volume.volumeSpec, volume.nodeName);
    return this.run(key, OperationName.attach, attachOperation(this.context, volume, asw));
  }

  /**
   * Detaches (`volume_detach`). With `verifySafeToDetach` the live Node is read first and the detach
   * refused while its `status.volumesInUse` lists the volume.
   */
  detachVolume(
    volume: AttachedVolume,
    verifySafeToDetach: boolean,
    asw: ActualStateOfWorldAttacherUpdater,
  ): Error | undefined {
    const key = attachDetachKey(volume.volumeName, volume.volumeSpec, volume.nodeName);
    return this.run(key, OperationName.detach, detachOperation(this.context, volume, verifySafeToDetach, asw));
  }

  /** Asks the plugins whether `volumes` are still attached to `nodeName`; never deduplicated. */
  verifyVolumesAreAttachedPerNode(
    volumes: readonly AttachedVolume[],
    nodeName: string,
    asw: ActualStateOfWorldAttacherUpdater,
  ): Error | undefined {
    const key = { volumeName: emptyVolumeName, podName: emptyPodName, nodeName: emptyNodeName };
    const operation = verifyVolumesAreAttachedOperation(this.context, volumes, nodeName, asw);
    return this.run(key, OperationName.verifyVolumesAreAttachedPerNode, operation);
  }

  /**
   * The kubelet's wait for the controller's attach (`verify_controller_attached_volume`). Refused
   * without starting (no API call, no backoff) while the cached Node does not list the volume yet.
   */
  verifyControllerAttachedVolume(
    volume: VolumeToMount,
    nodeName: string,
    asw: ActualStateOfWorldAttacherUpdater,
  ): Error | undefined {
    const refusal = notYetInNodeStatus(this.context, volume);
    if (refusal !== undefined) return refusal;
    const key = { volumeName: volume.volumeName, podName: emptyPodName, nodeName: emptyNodeName };
    const operation = verifyControllerAttachedVolumeOperation(this.context, volume, nodeName, asw);
    return this.run(key, OperationName.verifyControllerAttachedVolume, operation);
  }

  /**
   * Mounts a filesystem volume for a pod (`volume_mount`) or maps a Block one (`map_volume`).
   * `isRemount` only changes how the success is logged.
   */
  mountVolume(
    waitForAttachTimeoutMs: number,
    volume: VolumeToMount,
    asw: ActualStateOfWorldMounterUpdater,
    isRemount: boolean,
  ): Error | undefined {
    const request = { volume, asw, waitForAttachTimeoutMs };
    if (volume.volumeSpec.isBlock())
      return this.run(mountKey(volume), OperationName.map, mapOperation(this.context, request));
    if (isRemount) this.context.logger.debug("remounting volume", { volume: volume.volumeName, pod: volume.podName });
    return this.run(mountKey(volume), OperationName.mount, mountOperation(this.context, request));
  }

  /**
   * Grows the filesystem of a mounted claim whose PV grew (`volume_fs_resize`, key (volume, "", "")).
   * `currentSizeBytes`: the size the kubelet's ASW last recorded.
   */
  expandInUseVolume(
    volume: VolumeToMount,
    asw: ActualStateOfWorldMounterUpdater,
    currentSizeBytes: bigint,
  ): Error | undefined {
    const key = { volumeName: volume.volumeName, podName: emptyPodName, nodeName: emptyNodeName };
    return this.run(key, OperationName.fsResize, expandInUseOperation(this.context, { volume, asw, currentSizeBytes }));
  }

  /** Tears a pod's volume down (`volume_unmount`), or unmaps a Block one (`unmap_volume`). */
  unmountVolume(volume: MountedVolume, asw: ActualStateOfWorldMounterUpdater): Error | undefined {
    const key = { volumeName: volume.volumeName, podName: volume.podName, nodeName: emptyNodeName };
    if (volume.volumeSpec.isBlock())
      return this.run(key, OperationName.unmap, unmapOperation(this.context, volume, asw));
    return this.run(key, OperationName.unmount, unmountOperation(this.context, volume, asw));
  }

  /** Unmounts the per-node device mount (`unmount_device`), or releases a Block device (`unmap_device`). */
  unmountDevice(volume: AttachedVolume, asw: ActualStateOfWorldMounterUpdater): Error | undefined {
    const key = { volumeName: volume.volumeName, podName: emptyPodName, nodeName: emptyNodeName };
    if (volume.volumeSpec?.isBlock() === true) {
      return this.run(key, OperationName.unmapDevice, unmapDeviceOperation(this.context, volume, asw));
    }
    return this.run(key, OperationName.unmountDevice, unmountDeviceOperation(this.context, volume, asw));
  }

  /** True while an operation colliding with the given key runs. */
  isOperationPending(volumeName: string, podName: string, nodeName: string): boolean {
    return this.pendingOperations.isOperationPending(volumeName, podName, nodeName);
  }

  /** False while a colliding operation runs or this exact operation is in backoff. */
  isOperationSafeToRetry(volumeName: string, podName: string, nodeName: string, operationName: OperationName): boolean {
    return this.pendingOperations.isOperationSafeToRetry(volumeName, podName, nodeName, operationName);
  }

  /** Resolves when no operation runs. */
  waitForIdle(): Promise<void> {
    return this.pendingOperations.waitForIdle();
  }

  private run(target: OperationTarget, name: OperationName, operation: OperationFunc): Error | undefined {
    const timed =
      this.durations === undefined || target.volumeName === emptyVolumeName
        ? operation
        : timedOperation(this.durations, this.context.clock, target.volumeName, name, operation);
    return this.pendingOperations.run(operationKey(target.volumeName, target.podName, target.nodeName, name), timed);
  }
}
