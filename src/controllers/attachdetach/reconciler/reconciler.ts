/**
 * The attach/detach reconciler (spec §2.7), every 100 ms:
 *
 * 1. Detach pass, first, so a volume whose pod moved is detached before it is attached elsewhere.
 *    For each attached (or uncertain) (volume, node) no pod wants: skip while an operation on it
 *    runs or backs off; start the detach timer; detach only when the node no longer reports the
 *    volume in use, or the 6-minute timer expired on a node that is not Ready (force, unless
 *    disabled), or the node carries the out-of-service taint (at once). The volume leaves the
 *    node's `status.volumesAttached` before the detach starts; a failed write skips the detach.
 * 2. Attach pass: for each wanted (volume, node) not attached, refuse an RWO/RWOP volume attached
 *    elsewhere (Multi-Attach events, once per entry), otherwise attach.
 * 3. Write the node statuses that changed; every minute, ask the plugins whether attached volumes
 *    are still attached.
 *
 * Cost: the attach pass is O(wanted volumes); the detach pass visits only the attachments no pod
 * wants (the actual state keeps them, in its own order, as both states change:
 * `cache/unwanted-attachments.ts`), where Kubernetes scans every attachment; it reads them in place,
 * copying only those it may detach; it checks each against the desired state as it reaches it
 * and again before a detach starts, since a pod may come to want it while the pass awaits. A pass
 * makes API calls only for status writes and operations. A pass with nothing to do makes no API
 * call and parks the loop (`ParkingLoop`): a change to the desired or actual state wakes it at the
 * next 100 ms tick, so in the steady state — every wanted volume attached, nothing unwanted — the
 * reconciler costs nothing between the once-a-minute syncs, however many nodes and volumes there are.
 */
import type { Node } from "kubernetes-types/core/v1.js";
import type { Counter } from "prom-client";
import { taintKeyExists, taintNodeOutOfService } from "../../../api/scheduling/taints.ts";
import { invariant } from "../../../runtime/assert.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { formatGoDuration } from "../../../runtime/duration.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import type { Logger } from "../../../runtime/logger.ts";
import { ParkingLoop, type PassVerdict } from "../../../runtime/parking-loop.ts";
import { isMultiAttachAllowed } from "../../../volume/operationexecutor/multi-attach.ts";
import { VolumeEventReason, type VolumeEventRecorder } from "../../../volume/operationexecutor/operation-context.ts";
import { isExpectedError } from "../../../volume/operationexecutor/operation-errors.ts";
import { attachDetachKey, type OperationExecutor } from "../../../volume/operationexecutor/operation-executor.ts";
import { OperationName } from "../../../volume/operationexecutor/operation-names.ts";
import type { VolumeToAttach } from "../../../volume/operationexecutor/types.ts";
import {
  type ActualStateOfWorld,
  type AttachedVolumeOnNode,
  type ListedAttachment,
  pairKey,
} from "../cache/actual-state-of-world.ts";
import type { DesiredStateOfWorld } from "../cache/desired-state-of-world.ts";
import { minReconcileSyncPeriodMs } from "../constants.ts";
import type { NodeStatusUpdater } from "../statusupdater/node-status-updater.ts";
import { multiAttachMessages } from "./multi-attach-events.ts";
import type { MultiAttachPolicy } from "./multi-attach-policy.ts";

interface ReconcilerOptions {
  clock: Clock;
  logger: Logger;
  dsw: DesiredStateOfWorld;
  /** Built with `dsw` as its `isWanted`, and told of `dsw.onWantedChange`. */
  asw: ActualStateOfWorld;
  executor: OperationExecutor;
  statusUpdater: NodeStatusUpdater;
  recorder: VolumeEventRecorder;
  /** The node informer's cache (Ready condition, taints). */
  cachedNode: (name: string) => Node | undefined;
  loopPeriodMs: number;
  /** maxWaitForUnmountDuration: 6 min. */
  maxWaitForUnmountMs: number;
  /** `--attach-detach-reconcile-sync-period`: 1 min; under 1 s disables the sync. */
  syncPeriodMs: number;
  disableReconcileSync: boolean;
  disableForceDetachOnTimeout: boolean;
  /** Whether a volume attached elsewhere may be attached too (kubernetesMultiAttachPolicy). */
  multiAttachPolicy: MultiAttachPolicy;
  /** Counts the detaches started without the node's unmount (label `reason`), when metrics are kept. */
  forcedDetaches?: Counter;
}

const wantedButListedAsUnwanted = "listed by the actual state as unwanted, but the desired state wants it";

/** Ready condition True. A node missing from the informer is not healthy. */
function isNodeReady(node: Node | undefined): boolean {
  return (
    node?.status?.conditions?.some((condition) => condition.type === "Ready" && condition.status === "True") ?? false
  );
}

function hasOutOfServiceTaint(node: Node | undefined): boolean {
  return taintKeyExists(node?.spec?.taints, taintNodeOutOfService);
}

export class Reconciler {
  private readonly loop: ParkingLoop;
  private lastSyncMs: number;
  /** The last unwanted list found with no wanted pair, and the desired state's version then. */
  private checked: { list: readonly ListedAttachment[] | undefined; wantedVersion: number } = {
    list: undefined,
    wantedVersion: -1,
  };

  constructor(private readonly options: ReconcilerOptions) {
    this.lastSyncMs = options.clock.now();
    this.loop = new ParkingLoop(
      options.clock,
      options.loopPeriodMs,
      () => this.pass(),
      (err) => options.logger.error("reconciler pass failed", { error: errorMessage(err) }),
    );
    // Parks while idle; a change to either state wakes it at the next tick (as the kubelet's reconciler).
    options.dsw.onChange(() => this.loop.wake());
    options.asw.onChange(() => this.loop.wake());
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Passes run so far, and whether the loop is parked (tests, diagnostics). */
  passCount(): number {
    return this.loop.passes;
  }

  isParked(): boolean {
    return this.loop.isParked();
  }

  private async pass(): Promise<PassVerdict> {
    const detachIdle = await this.detachPass();
    const attachIdle = this.attachPass();
    await this.options.statusUpdater.updateNodeStatuses();
    const nextSyncMs = this.syncIfDue();
    const idle =
      detachIdle &&
      attachIdle &&
      !this.options.asw.anyNodeNeedsStatusUpdate() &&
      this.options.executor.pendingOperations.pendingCount() === 0;
    if (!idle) return { busy: true };
    return nextSyncMs === undefined ? { busy: false } : { busy: false, wakeAtMs: nextSyncMs };
  }

  /** Returns true when no attached volume is unwanted. */
  private async detachPass(): Promise<boolean> {
    const { asw } = this.options;
    // A list the loop's awaits do not change; its pairs read as they were when it was made.
    const unwanted = asw.listAttachmentsNotWanted();
    this.checkNoneWanted(unwanted);
    for (const pair of unwanted) {
      // The list was true before the first await; a pod may have come to want a later pair since.
      if (this.options.dsw.volumeExists(pair.volumeName, pair.nodeName)) continue;
      // Checked here rather than in considerDetach: a volume waiting for its unmount costs no await,
      // and during a mass deletion thousands of them wait, pass after pass.
      if (this.stillWaitsForUnmount(pair)) continue;
      await this.considerDetach(asw.listedAttachment(pair));
    }
    return unwanted.length === 0;
  }

  /**
   * Checked before the first await, while the list is still true: a wanted volume listed here (an
   * actual state not linked to this desired state) would be detached from its pod. The same list
   * checked against the same wanted pairs passes again: skipped.
   */
  private checkNoneWanted(unwanted: readonly ListedAttachment[]): void {
    const { dsw } = this.options;
    const wantedVersion = dsw.wantedVersion();
    if (unwanted === this.checked.list && wantedVersion === this.checked.wantedVersion) return;
    for (const { volumeName, nodeName } of unwanted) {
      invariant(!dsw.volumeExists(volumeName, nodeName), pairKey(volumeName, nodeName), wantedButListedAsUnwanted);
    }
    this.checked = { list: unwanted, wantedVersion };
  }

  private async considerDetach(attached: AttachedVolumeOnNode): Promise<void> {
    const { asw, executor, logger } = this.options;
    const key = attachDetachKey(attached.volumeName, attached.volumeSpec, attached.nodeName);
    if (!executor.isOperationSafeToRetry(key.volumeName, key.podName, key.nodeName, OperationName.detach)) return;
    // The operation may have ended between listing and the check above: look again.
    if (asw.getAttachState(attached.volumeName, attached.nodeName) === "Detached") return;
    const elapsedMs = asw.setDetachRequestTime(attached.volumeName, attached.nodeName);
    const node = this.options.cachedNode(attached.nodeName);
    const expired = elapsedMs > this.options.maxWaitForUnmountMs;
    const forceTimeout = expired && !this.options.disableForceDetachOnTimeout;
    const forceDetach = forceTimeout && !isNodeReady(node);
    const outOfService = hasOutOfServiceTaint(node);
    if (attached.mountedByNode && !forceDetach && !outOfService) return;

    try {
      asw.removeVolumeFromReportAsAttached(attached.volumeName, attached.nodeName);
    } catch (err) {
      logger.debug("RemoveVolumeFromReportAsAttached failed while attempting to detach", { error: errorMessage(err) });
    }
    const written = await this.options.statusUpdater.updateNodeStatusForNode(attached.nodeName);
    // A pod may have come to want the volume during the write; a forced detach has no other guard.
    if (!written || this.options.dsw.volumeExists(attached.volumeName, attached.nodeName)) {
      asw.addVolumeToReportAsAttached(attached.volumeName, attached.nodeName);
      return;
    }
    const verifySafeToDetach = !(forceTimeout || outOfService);
    const refusal = executor.detachVolume(attached, verifySafeToDetach, asw);
    if (refusal !== undefined) {
      asw.addVolumeToReportAsAttached(attached.volumeName, attached.nodeName);
      if (!isExpectedError(refusal))
        logger.error("attacherDetacher.DetachVolume failed to start", { error: refusal.message });
      return;
    }
    if (!verifySafeToDetach) this.options.forcedDetaches?.inc({ reason: outOfService ? "out-of-service" : "timeout" });
    logger.info(detachStartedMessage(verifySafeToDetach, forceTimeout, this.options.maxWaitForUnmountMs), {
      volume: attached.volumeName,
      node: attached.nodeName,
      // The real clock has sub-millisecond precision; the log shows whole milliseconds.
      elapsedMs: Math.round(elapsedMs),
    });
  }

  /**
   * The usual case of a detach pass, answered without building operation keys: a volume still
   * mounted whose detach was already requested, neither forced by the timeout nor by the
   * out-of-service taint. The full path below would end the same way with no effect (the request
   * time is already set), so a pass over thousands of volumes waiting for their unmount stays cheap.
   */
  private stillWaitsForUnmount(pair: ListedAttachment): boolean {
    const { asw } = this.options;
    if (!asw.listedMountedByNode(pair)) return false;
    const elapsedMs = asw.currentDetachRequestedAgoMs(pair);
    if (elapsedMs === undefined) return false;
    const node = this.options.cachedNode(pair.nodeName);
    if (hasOutOfServiceTaint(node)) return false;
    const forceTimeout = elapsedMs > this.options.maxWaitForUnmountMs && !this.options.disableForceDetachOnTimeout;
    return !(forceTimeout && !isNodeReady(node));
  }

  /** Returns true when every wanted volume is attached. */
  private attachPass(): boolean {
    const { dsw, asw, executor, logger } = this.options;
    let idle = true;
    for (const volume of dsw.getVolumesToAttach()) {
      const keyNode = isMultiAttachAllowed(volume.volumeSpec) ? volume.nodeName : "";
      // Pending first: an operation updates the ASW before it ends, so the state read after is current.
      if (executor.isOperationPending(volume.volumeName, "", keyNode)) {
        idle = false;
        continue;
      }
      if (asw.resetDetachRequestTimeIfAttached(volume.volumeName, volume.nodeName)) continue;
      idle = false;
      if (this.refuseMultiAttach(volume)) continue;
      const refusal = executor.attachVolume(volume, asw);
      if (refusal === undefined)
        logger.info("attacherDetacher.AttachVolume started", { volume: volume.volumeName, node: volume.nodeName });
      else if (!isExpectedError(refusal))
        logger.error("attacherDetacher.AttachVolume failed to start", { error: refusal.message });
    }
    return idle;
  }

  /** An RWO/RWOP volume attached to another node: tell the pods once, and do not attach. */
  private refuseMultiAttach(volume: VolumeToAttach): boolean {
    if (this.options.multiAttachPolicy.allowsMultiAttach(volume.volumeSpec)) return false;
    const nodes = this.options.asw.getNodesForAttachedVolume(volume.volumeName);
    if (nodes.length === 0) return false;
    if (volume.multiAttachErrorReported) return true;
    const otherNodes = nodes.filter((node) => node !== volume.nodeName);
    const blockingPods = this.options.dsw.getVolumePodsOnNodes(otherNodes, volume.volumeName);
    for (const { pod, message } of multiAttachMessages(volume, blockingPods)) {
      this.options.recorder.event(pod, "Warning", VolumeEventReason.failedAttachVolume, message);
    }
    this.options.logger.info("Multi-Attach error: volume is already attached to another node", {
      volume: volume.volumeName,
      node: volume.nodeName,
      attachedTo: otherNodes.join(","),
    });
    this.options.dsw.setMultiAttachError(volume.volumeName, volume.nodeName);
    return true;
  }

  /** Starts the "are volumes still attached" check when it is due; returns when the next one is. */
  private syncIfDue(): number | undefined {
    const { disableReconcileSync, syncPeriodMs, clock, asw, executor } = this.options;
    if (disableReconcileSync || syncPeriodMs < minReconcileSyncPeriodMs) return undefined;
    // Due strictly after a whole period, as `time.Since(last) > period`.
    if (clock.now() - this.lastSyncMs > syncPeriodMs) {
      for (const [nodeName, volumes] of asw.getAttachedVolumesPerNode()) {
        executor.verifyVolumesAreAttachedPerNode(volumes, nodeName, asw);
      }
      this.lastSyncMs = clock.now();
    }
    return this.lastSyncMs + syncPeriodMs + 1;
  }
}

function detachStartedMessage(verifySafeToDetach: boolean, forceTimeout: boolean, maxWaitMs: number): string {
  if (verifySafeToDetach) return "attacherDetacher.DetachVolume started";
  if (forceTimeout) {
    return `attacherDetacher.DetachVolume started: this volume is not safe to detach, but maxWaitForUnmountDuration ${formatGoDuration(maxWaitMs)} expired, force detaching`;
  }
  return "attacherDetacher.DetachVolume started: node has out-of-service taint, force detaching";
}
