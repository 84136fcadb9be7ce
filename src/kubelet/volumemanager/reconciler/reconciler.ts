/**
 * The kubelet volume reconciler (pkg/kubelet/volumemanager/reconciler; spec §3.4): reconstructs the
 * actual state from disk once, then every `kubeletReconcilerLoopPeriodMs` brings the actual state
 * towards the desired one through the operation executor:
 *
 * 1. unmount pod volumes no pod wants (only once ready to unmount, see below);
 * 2. attach / verify the controller's attach, then mount (or remount) what pods want, and grow the
 *    filesystem of mounted claims whose PV grew (ExpandInUseVolume);
 * 3. unmount devices of volumes no pod uses any more, and forget them as detached;
 *    clean up volumes whose reconstruction failed;
 * 4. fix reconstructed volumes' device paths from `node.status.volumesAttached`, and once the desired
 *    state is populated mark them as reported in use.
 *
 * "Ready to unmount" = the populator finished one full pass after the pod sources were ready AND the
 * reconstructed device paths were fixed: before that, a volume a running pod uses may simply not be
 * in the desired state yet. Refusals the executor returns every pass (already running, backing off)
 * are silent, as in Kubernetes.
 *
 * Idle costs nothing (DESIGN.md, Cost model): a pass that asked for no operation, while none runs,
 * parks the loop (`ParkingLoop`); a change to either state or the populator's first full pass wakes
 * it at the next 100 ms tick, the instant the always-running loop would have seen the change. While
 * an operation runs the loop keeps its period, so the pass after the operation ends runs on time even
 * when the operation changed nothing; such passes cost O(1) while nothing they read changed.
 */
import type { Node } from "kubernetes-types/core/v1.js";
import type { Clock } from "../../../runtime/clock.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import type { Logger } from "../../../runtime/logger.ts";
import { ParkingLoop, type PassVerdict } from "../../../runtime/parking-loop.ts";
import { isExpectedError } from "../../../volume/operationexecutor/operation-errors.ts";
import type { OperationExecutor } from "../../../volume/operationexecutor/operation-executor.ts";
import type { VolumeToMount } from "../../../volume/operationexecutor/types.ts";
import type { VolumePluginManager } from "../../../volume/plugin-manager.ts";
import { VolumeSpec } from "../../../volume/spec.ts";
import type { NodeVolumeContext } from "../../../volume/volume-host.ts";
import type { ActualStateOfWorld, KubeletAttachedVolume } from "../cache/actual-state-of-world.ts";
import type { DesiredStateOfWorld } from "../cache/desired-state-of-world.ts";
import type { PodVolumeDir } from "../pod-volume-dirs.ts";
import { reconstructVolumes } from "./reconstruct.ts";

interface ReconcilerOptions {
  clock: Clock;
  logger: Logger;
  loopPeriodMs: number;
  /** waitForAttachTimeout: the longest a mount waits for its volume to appear on the node. */
  waitForAttachTimeoutMs: number;
  nodeName: string;
  /** True (the default in Kubernetes) when the attach/detach controller attaches; false: the kubelet does. */
  controllerAttachDetachEnabled: boolean;
  dsw: DesiredStateOfWorld;
  asw: ActualStateOfWorld;
  executor: OperationExecutor;
  plugins: VolumePluginManager;
  node: NodeVolumeContext;
  populatorHasAddedPods: () => boolean;
  /** A live read of this node (device paths of reconstructed volumes). */
  getNode: () => Promise<Node>;
}

export class Reconciler {
  private volumesNeedUpdateFromNodeStatus: string[] = [];
  private volumesNeedReportedInUse: string[] = [];
  private volumesFailedReconstruction: PodVolumeDir[] = [];
  private synced = false;
  private readonly loop: ParkingLoop;
  /** What the last pass saw, to skip passes that would find nothing to do. */
  private idleFingerprint: string | undefined;
  /** Operations this pass asked the executor for (started or refused). */
  private operationsRequested = 0;

  constructor(private readonly options: ReconcilerOptions) {
    const { clock, logger, loopPeriodMs, dsw, asw } = options;
    this.loop = new ParkingLoop(
      clock,
      loopPeriodMs,
      () => this.parkingPass(),
      (err) => logger.error("volume reconciler pass failed", { error: errorMessage(err) }),
    );
    // Parks while idle; a change to either state wakes it at the next tick (as the controller's reconciler).
    dsw.onChange(() => this.loop.wake());
    asw.onChange(() => this.loop.wake());
  }

  /** Reconstructs from disk, then starts the loop (its first pass right after reconstruction). */
  async run(): Promise<void> {
    await this.reconstruct();
    // A loop stopped meanwhile does not start.
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Something a pass reads changed outside both states (the populator's first full pass): run at the next tick. */
  wake(): void {
    this.loop.wake();
  }

  /** True once a pass ran with every reconstructed device path fixed: node status may report volumesInUse. */
  statesHaveBeenSynced(): boolean {
    return this.synced;
  }

  async reconstruct(): Promise<void> {
    const { plugins, node, asw, logger } = this.options;
    const result = await reconstructVolumes({ plugins, node, asw, logger });
    this.volumesFailedReconstruction = result.volumesFailedReconstruction;
    this.volumesNeedReportedInUse = [...result.reconstructedVolumeNames];
    this.volumesNeedUpdateFromNodeStatus = [...result.reconstructedVolumeNames];
  }

  /**
   * A pass, and whether the next one may wait for a change: not while it asked for operations (they
   * are retried or re-checked every period), while one runs (its end may change nothing the pass
   * reads, yet the next pass must see it), or while the Node could not be read for reconstruction.
   */
  private async parkingPass(): Promise<PassVerdict> {
    await this.pass();
    const busy =
      this.idleFingerprint === undefined ||
      this.options.executor.pendingOperations.pendingCount() > 0 ||
      this.volumesNeedUpdateFromNodeStatus.length > 0;
    return { busy };
  }

  /** One reconciler pass. */
  async pass(): Promise<void> {
    const fingerprint = this.fingerprint();
    if (fingerprint === this.idleFingerprint) return;
    this.operationsRequested = 0;
    const readyToUnmount = this.readyToUnmount();
    // Unmount first, so a volume that moved from a deleted pod to a new one leaves the old pod first.
    if (readyToUnmount) this.unmountVolumes();
    this.mountOrAttachVolumes();
    if (readyToUnmount) {
      this.unmountDetachDevices();
      this.cleanOrphanVolumes();
    }
    if (this.volumesNeedUpdateFromNodeStatus.length > 0) await this.updateReconstructedFromNodeStatus();
    if (this.volumesNeedUpdateFromNodeStatus.length === 0) this.synced = true;
    if (this.volumesNeedReportedInUse.length > 0 && this.options.populatorHasAddedPods()) {
      this.options.dsw.markVolumesReportedInUse(this.volumesNeedReportedInUse);
      this.volumesNeedReportedInUse = [];
    }
    this.idleFingerprint = this.operationsRequested === 0 ? this.fingerprint() : undefined;
  }

  /**
   * Everything a pass decides from: both states (by generation), whether operations run, whether
   * unmounting is allowed, and the one-shot reconstruction work still to do.
   */
  private fingerprint(): string {
    const { dsw, asw, executor, populatorHasAddedPods } = this.options;
    const running = executor.pendingOperations.pendingCount();
    const pendingWork =
      this.volumesNeedUpdateFromNodeStatus.length +
      this.volumesNeedReportedInUse.length +
      this.volumesFailedReconstruction.length;
    return `${dsw.generation}/${asw.generation}/${running}/${populatorHasAddedPods()}/${pendingWork}`;
  }

  private readyToUnmount(): boolean {
    return this.options.populatorHasAddedPods() && this.volumesNeedUpdateFromNodeStatus.length === 0;
  }

  /** Reports a refusal worth a log line; the expected ones (already running, backing off) stay silent. */
  private requested(what: string, err: Error | undefined, fields: Record<string, unknown>): void {
    this.operationsRequested++;
    if (err === undefined) {
      this.options.logger.debug(`${what} started`, fields);
    } else if (!isExpectedError(err)) {
      this.options.logger.debug(`${what} not started`, { ...fields, error: errorMessage(err) });
    }
  }

  private unmountVolumes(): void {
    const { asw, dsw, executor } = this.options;
    for (const mounted of asw.getAllMountedVolumes()) {
      if (dsw.podExistsInVolume(mounted.podName, mounted.volumeName)) continue;
      const err = executor.unmountVolume(mounted, asw);
      this.requested("operationExecutor.UnmountVolume", err, { volume: mounted.volumeName, pod: mounted.podUID });
    }
  }

  private mountOrAttachVolumes(): void {
    const { asw, dsw } = this.options;
    for (const desired of dsw.getVolumesToMount()) {
      const status = asw.podExistsInVolume(
        desired.podName,
        desired.volumeName,
        desired.desiredPersistentVolumeSizeBytes ?? 0n,
      );
      if (status.kind === "notAttached") {
        this.waitForVolumeAttach(desired);
        continue;
      }
      if (status.kind === "mounted") continue;
      if (status.kind === "resizeRequired") {
        this.expandVolume({ ...desired, devicePath: status.devicePath }, status.currentSizeBytes);
        continue;
      }
      this.mountAttachedVolume({ ...desired, devicePath: status.devicePath }, status.kind === "remountRequired");
    }
  }

  /** A mounted claim whose PV grew: NodeExpandVolume while the pod runs (ExpandInUseVolume). */
  private expandVolume(volume: VolumeToMount, currentSizeBytes: bigint): void {
    const { asw, executor } = this.options;
    const err = executor.expandInUseVolume(volume, asw, currentSizeBytes);
    this.requested("operationExecutor.ExpandInUseVolume", err, { volume: volume.volumeName, pod: volume.podName });
  }

  private waitForVolumeAttach(volume: VolumeToMount): void {
    const { asw, executor, nodeName, controllerAttachDetachEnabled } = this.options;
    const fields = { volume: volume.volumeName, pod: volume.podName };
    if (controllerAttachDetachEnabled || !volume.pluginIsAttachable) {
      // Until the volume is in node.status.volumesInUse the controller may still detach it: do not
      // even start (no goroutine, no backoff), as Kubernetes does.
      if (volume.pluginIsAttachable && !volume.reportedInUse) return;
      const err = executor.verifyControllerAttachedVolume(volume, nodeName, asw);
      this.requested("operationExecutor.VerifyControllerAttachedVolume", err, fields);
      return;
    }
    const err = executor.attachVolume(
      {
        volumeName: volume.volumeName,
        volumeSpec: volume.volumeSpec,
        nodeName,
        scheduledPods: [volume.pod],
        multiAttachErrorReported: false,
      },
      asw,
    );
    this.requested("operationExecutor.AttachVolume", err, fields);
  }

  private mountAttachedVolume(volume: VolumeToMount, isRemount: boolean): void {
    const { asw, executor, waitForAttachTimeoutMs } = this.options;
    const err = executor.mountVolume(waitForAttachTimeoutMs, volume, asw, isRemount);
    this.requested("operationExecutor.MountVolume", err, { volume: volume.volumeName, pod: volume.podName, isRemount });
  }

  private unmountDetachDevices(): void {
    const { asw, dsw, executor } = this.options;
    for (const attached of asw.getUnmountedVolumes()) {
      if (dsw.volumeExists(attached.volumeName)) continue;
      // A mount of this volume may be in flight for a pod that just left: wait for it to land.
      if (executor.isOperationPending(attached.volumeName, "", "")) continue;
      this.unmountOrDetach(attached);
    }
  }

  private unmountOrDetach(attached: KubeletAttachedVolume): void {
    const { asw, executor, controllerAttachDetachEnabled, logger } = this.options;
    const fields = { volume: attached.volumeName };
    if (attached.deviceMountState !== "DeviceNotMounted") {
      this.requested("operationExecutor.UnmountDevice", executor.unmountDevice(attached, asw), fields);
      return;
    }
    if (controllerAttachDetachEnabled || !attached.pluginIsAttachable) {
      // The kubelet never detaches a controller-attached volume: it only forgets it.
      asw.markVolumeAsDetached(attached.volumeName, attached.nodeName);
      this.operationsRequested++;
      logger.info("Volume detached", { ...fields, devicePath: attached.devicePath });
      return;
    }
    this.requested("operationExecutor.DetachVolume", executor.detachVolume(attached, false, asw), fields);
  }

  /** Unmounts, through the plugin name alone, the directories reconstruction could not rebuild and no pod wants. */
  private cleanOrphanVolumes(): void {
    const { asw, dsw, executor, logger } = this.options;
    if (this.volumesFailedReconstruction.length === 0) return;
    for (const dir of this.volumesFailedReconstruction) {
      if (dsw.volumeExistsWithSpecName(dir.podUID, dir.volumeSpecName)) continue;
      logger.info("Cleaning up mounts for volume that could not be reconstructed", {
        pod: dir.podUID,
        volumeSpecName: dir.volumeSpecName,
      });
      const err = executor.unmountVolume(
        {
          podName: dir.podUID,
          podUID: dir.podUID,
          // Not in the ASW, so any name will do; the spec name keeps the log readable.
          volumeName: dir.volumeSpecName,
          innerVolumeSpecName: dir.volumeSpecName,
          outerVolumeSpecName: dir.volumeSpecName,
          pluginName: dir.pluginName,
          volumeSpec: VolumeSpec.fromVolume({ name: dir.volumeSpecName }),
        },
        asw,
      );
      this.requested("volumeHandler.UnmountVolumeHandler for UnmountVolume", err, { pod: dir.podUID });
    }
    // One shot, as in Kubernetes: what failed here is retried only after the next restart.
    this.volumesFailedReconstruction = [];
  }

  private async updateReconstructedFromNodeStatus(): Promise<void> {
    const { asw, logger, getNode } = this.options;
    let node: Node;
    try {
      node = await getNode();
    } catch (err) {
      // Repeats every pass until the kubelet can read its own Node for the first time.
      logger.debug("Failed to get Node status to reconstruct device paths", { error: errorMessage(err) });
      return;
    }
    const attached = node.status?.volumesAttached ?? [];
    for (const volumeName of this.volumesNeedUpdateFromNodeStatus) {
      const entry = attached.find((candidate) => candidate.name === volumeName);
      if (entry !== undefined) asw.updateReconstructedDevicePath(volumeName, entry.devicePath);
      asw.updateReconstructedVolumeAttachability(volumeName, entry !== undefined);
    }
    logger.info("DevicePaths of reconstructed volumes updated");
    this.volumesNeedUpdateFromNodeStatus = [];
  }
}
