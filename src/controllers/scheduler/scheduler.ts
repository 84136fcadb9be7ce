/**
 * The default scheduler: places every pending pod whose `spec.schedulerName` is `default-scheduler`
 * (or unset) on a node, through the `pods/binding` subresource, as kube-scheduler does.
 *
 * One pod at a time goes through a scheduling cycle (pod-placement.ts: filters, then the choice),
 * is assumed onto its node, and then a binding cycle runs in the background: the volume decisions
 * are written and waited for (volume-binder.ts), and the pod is bound. Failures are reported as a
 * Warning `FailedScheduling` event and a PodScheduled=False condition, and the pod goes back to the
 * scheduling queue (scheduling-queue.ts) to be retried after its backoff or a cluster event.
 *
 * A pod created with `spec.nodeName` never passes through here, so its WaitForFirstConsumer claims
 * are never given a node and stay Pending — Kubernetes' documented limitation, reproduced.
 */

import { isNotFound } from "../../api/errors.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import { ensureIndex, podsByClaim, volumeAttachmentsByNode } from "../../api/informer/indexes.ts";
import type { HandlerRegistration, SharedInformer } from "../../api/informer/shared-informer.ts";
import type {
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
  VolumeAttachment,
} from "../../api/objects.ts";
import { objectKey, splitObjectKey } from "../../api/objects.ts";
import { updatePodCondition } from "../../api/pod-conditions.ts";
import { volumeClassName } from "../../api/storage/pv-helpers.ts";
import { jsonEqual } from "../../api/store/json-equal.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { AssumeCache } from "./assume-cache.ts";
import {
  defaultSchedulerName,
  podReasonSchedulerError,
  podReasonUnschedulable,
  reasonFailedScheduling,
  reasonScheduled,
} from "./constants.ts";
import { PodPlacement } from "./pod-placement.ts";
import { mayChangeNodeCounts, SchedulerCache } from "./scheduler-cache.ts";
import { type QueuedPod, SchedulingQueue } from "./scheduling-queue.ts";
import { VolumeBinder } from "./volume-binder.ts";
import {
  allVolumesBound,
  claimWithSelectedNode,
  type PodVolumes,
  type VolumeView,
  volumeBoundToClaim,
} from "./volume-binding.ts";
import { podsHelpedByClaim, podsHelpedByVolume, type WokenPods } from "./volume-event-hints.ts";
import { usesClaims, VolumeLimits, type VolumeLimitsView } from "./volume-limits.ts";

interface SchedulerOptions {
  /** The `spec.schedulerName` this scheduler serves and the events' source; `default-scheduler` by default. */
  schedulerName?: string;
  /** Bound on pods waiting for a node at once. */
  maxPendingPods?: number;
}

/** Far above any simulated cluster (150,000 pods), small enough to stop a runaway creator. */
const defaultMaxPendingPods = 1_000_000;
/** Messages longer than this are cut with " ..." (kube-scheduler's truncateMessage, for etcd-friendly events). */
const maxFailureMessageLength = 1024;
/** Persistent volumes by class, for the volume matching of WaitForFirstConsumer claims. */
const volumesByClassIndex = "scheduler/persistentvolumes-by-class";

function truncateMessage(message: string): string {
  if (message.length <= maxFailureMessageLength) return message;
  const suffix = " ...";
  return message.slice(0, maxFailureMessageLength - suffix.length) + suffix;
}

/** Kubernetes' NodeSchedulingPropertiesChange: what about a node can change where pods fit. */
function schedulingPropertiesChanged(oldNode: Node, newNode: Node): boolean {
  const conditionStatuses = (node: Node) =>
    (node.status?.conditions ?? []).map((condition) => `${condition.type}=${condition.status}`).sort();
  return (
    !jsonEqual(oldNode.metadata?.labels, newNode.metadata?.labels) ||
    !jsonEqual(oldNode.spec?.taints, newNode.spec?.taints) ||
    oldNode.spec?.unschedulable !== newNode.spec?.unschedulable ||
    !jsonEqual(oldNode.status?.allocatable, newNode.status?.allocatable) ||
    !jsonEqual(conditionStatuses(oldNode), conditionStatuses(newNode))
  );
}

/** isPodUpdated without the status: a change a pod's owner made that could make it fit. */
function podSpecChanged(oldPod: Pod, newPod: Pod): boolean {
  return (
    !jsonEqual(oldPod.spec, newPod.spec) ||
    !jsonEqual(oldPod.metadata?.labels, newPod.metadata?.labels) ||
    !jsonEqual(oldPod.metadata?.annotations, newPod.metadata?.annotations)
  );
}

export class Scheduler implements Controller {
  readonly name: string;
  private readonly context: ControllerContext;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly pods: SharedInformer<Pod>;
  private readonly nodes: SharedInformer<Node>;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly classes: SharedInformer<StorageClass>;
  private readonly csiDrivers: SharedInformer<CSIDriver>;
  private readonly capacities: SharedInformer<CSIStorageCapacity>;
  private readonly csiNodes: SharedInformer<CSINode>;
  private readonly attachments: SharedInformer<VolumeAttachment>;
  private readonly queue: SchedulingQueue;
  private readonly cache: SchedulerCache;
  /** The volume binder's decisions; each change drops NodeVolumeLimits' counts that read the object. */
  private readonly assumedVolumes = new AssumeCache<PersistentVolume>((name) => this.volumeLimits.volumeChanged(name));
  private readonly assumedClaims = new AssumeCache<PersistentVolumeClaim>((key) => this.volumeLimits.claimChanged(key));
  private readonly view: VolumeView;
  /** NodeVolumeLimits, with each node's counts cached: every handler below reports what it changes. */
  private readonly volumeLimits: VolumeLimits;
  private readonly placement: PodPlacement;
  private readonly binder: VolumeBinder;
  private readonly bindingCycles = new Set<Promise<void>>();
  private readonly conditionWrites = new Set<Promise<void>>();
  private registrations: HandlerRegistration[] = [];
  private loop: Promise<void> | undefined;

  constructor(context: ControllerContext, options: SchedulerOptions = {}) {
    this.name = options.schedulerName ?? defaultSchedulerName;
    this.context = context;
    this.logger = context.logger.with({ component: this.name });
    this.recorder = recorderFor(context, this.name);
    const informers = context.informers;
    this.pods = informers.informerFor("Pod");
    this.nodes = informers.informerFor("Node");
    this.claims = informers.informerFor("PersistentVolumeClaim");
    this.volumes = informers.informerFor("PersistentVolume");
    this.classes = informers.informerFor("StorageClass");
    this.csiDrivers = informers.informerFor("CSIDriver");
    this.capacities = informers.informerFor("CSIStorageCapacity");
    this.csiNodes = informers.informerFor("CSINode");
    this.attachments = informers.informerFor("VolumeAttachment");
    ensureIndex(this.pods, podsByClaim);
    ensureIndex(this.attachments, volumeAttachmentsByNode);
    if (!this.volumes.indexer.hasIndex(volumesByClassIndex)) {
      this.volumes.addIndexers({ [volumesByClassIndex]: (volume) => [volumeClassName(volume)] });
    }
    const timers = context.timers;
    this.queue = new SchedulingQueue({
      clock: context.clock,
      initialBackoffMs: timers.schedulerPodInitialBackoffMs,
      maxBackoffMs: timers.schedulerPodMaxBackoffMs,
      backoffFlushPeriodMs: timers.schedulerBackoffFlushPeriodMs,
      unschedulableFlushPeriodMs: timers.schedulerUnschedulableFlushPeriodMs,
      maxInUnschedulableMs: timers.schedulerMaxInUnschedulablePodsMs,
      maxPods: options.maxPendingPods ?? defaultMaxPendingPods,
    });
    this.cache = new SchedulerCache(this.pods, (nodeName) => this.volumeLimits.nodeChanged(nodeName));
    this.view = this.volumeView();
    this.volumeLimits = new VolumeLimits(
      this.volumeLimitsView(),
      context.rng.stream("scheduler/volume-limits").hex(16),
      { cached: true },
    );
    this.placement = new PodPlacement({
      nodes: () => this.cache.sortedNodesWithNames(),
      podCount: (nodeName) => this.cache.podCount(nodeName),
      volumes: this.view,
      volumeLimits: this.volumeLimits,
    });
    this.binder = new VolumeBinder({
      client: context.client,
      clock: context.clock,
      pods: this.pods.lister,
      nodes: this.nodes.lister,
      volumes: this.volumes.lister,
      claims: this.claims.lister,
      pollIntervalMs: timers.volumeBindingPollIntervalMs,
      timeoutMs: timers.volumeBindingTimeoutMs,
    });
  }

  start(): void {
    if (this.loop !== undefined) return;
    this.registerHandlers();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    for (const registration of this.registrations) registration.remove();
    this.registrations = [];
    this.queue.close();
    this.binder.stop();
    await this.loop;
    await Promise.all([...this.bindingCycles]);
    await Promise.all([...this.conditionWrites]);
    await this.recorder.flush();
  }

  /** Pods the queue knows, by where they wait (for tests and diagnostics). */
  queueCounts(): ReturnType<SchedulingQueue["counts"]> {
    return this.queue.counts();
  }

  private isPendingForUs(pod: Pod): boolean {
    const phase = pod.status?.phase;
    return (
      !pod.spec?.nodeName &&
      !pod.metadata?.deletionTimestamp &&
      phase !== "Succeeded" &&
      phase !== "Failed" &&
      (pod.spec?.schedulerName || defaultSchedulerName) === this.name
    );
  }

  private volumeView(): VolumeView {
    return {
      claim: (namespace, name) => {
        const key = `${namespace}/${name}`;
        return this.assumedClaims.latest(key, this.claims.lister.get(namespace, name));
      },
      volume: (name) => this.assumedVolumes.latest(name, this.volumes.lister.get("", name)),
      volumesOfClass: (className) =>
        this.volumes.indexer
          .byIndex(volumesByClassIndex, className)
          .map((volume) => this.assumedVolumes.latest(volume.metadata?.name ?? "", volume) ?? volume),
      storageClass: (name) => this.classes.lister.get("", name),
      csiDriver: (name) => this.csiDrivers.lister.get("", name),
      storageCapacities: () => this.capacities.lister.list(),
    };
  }

  private volumeLimitsView(): VolumeLimitsView {
    return {
      csiNode: (nodeName) => this.csiNodes.lister.get("", nodeName),
      podsOnNode: (nodeName) => this.cache.podsOnNode(nodeName),
      attachmentsOnNode: (nodeName) => this.attachments.indexer.byIndex(volumeAttachmentsByNode.name, nodeName),
      claim: (namespace, name) => this.view.claim(namespace, name),
      volume: (name) => this.view.volume(name),
      storageClassProvisioner: (name) => this.classes.lister.get("", name)?.provisioner,
    };
  }

  private registerHandlers(): void {
    const moveAll = () => this.queue.moveAllToActiveOrBackoff();
    this.registrations = [
      this.pods.addEventHandler({
        onAdd: (pod) => this.podAdded(pod),
        onUpdate: (oldPod, newPod) => this.podUpdated(oldPod, newPod),
        onDelete: (pod) => this.podDeleted(pod),
      }),
      this.nodes.addEventHandler({
        onAdd: (node) => {
          this.cache.setNode(node);
          moveAll();
        },
        onUpdate: (oldNode, newNode) => {
          this.cache.setNode(newNode);
          if (schedulingPropertiesChanged(oldNode, newNode)) moveAll();
        },
        onDelete: (node) => {
          this.cache.removeNode(node.metadata?.name ?? "");
          // Its counts would otherwise be kept for a node that is gone.
          this.volumeLimits.nodeChanged(node.metadata?.name ?? "");
        },
      }),
      this.claims.addEventHandler({
        onAdd: (claim) => this.wake(podsHelpedByClaim(this.pods.indexer, claim)),
        onUpdate: (_old, claim) => this.wake(podsHelpedByClaim(this.pods.indexer, claim)),
      }),
      this.volumes.addEventHandler({
        onAdd: (volume) => this.wake(podsHelpedByVolume(this.pods.indexer, volume, undefined)),
        onUpdate: (old, volume) => this.wake(podsHelpedByVolume(this.pods.indexer, volume, old)),
      }),
      this.classes.addEventHandler({ onAdd: moveAll, onUpdate: moveAll }),
      ...this.volumeLimitsHandlers(),
      // Published capacity and a driver's storageCapacity switch can make room (VolumeBinding's events).
      this.capacities.addEventHandler({ onAdd: moveAll, onUpdate: moveAll }),
      this.csiDrivers.addEventHandler({ onAdd: moveAll, onUpdate: moveAll }),
      // NodeVolumeLimits' events: a new or raised limit, or a detached volume, can make room.
      this.csiNodes.addEventHandler({ onAdd: moveAll, onUpdate: moveAll }),
      this.attachments.addEventHandler({ onDelete: moveAll }),
    ];
  }

  /** What NodeVolumeLimits' cached counts are computed from: each change drops the counts that read it. */
  private volumeLimitsHandlers(): HandlerRegistration[] {
    const limits = this.volumeLimits;
    const claimChanged = (claim: PersistentVolumeClaim) => limits.claimChanged(objectKey(claim));
    const volumeChanged = (volume: PersistentVolume) => limits.volumeChanged(volume.metadata?.name ?? "");
    const attachmentChanged = (attachment: VolumeAttachment) => limits.nodeChanged(attachment.spec?.nodeName ?? "");
    return [
      this.claims.addEventHandler({
        onAdd: claimChanged,
        onUpdate: (_old, claim) => claimChanged(claim),
        onDelete: claimChanged,
      }),
      this.volumes.addEventHandler({
        onAdd: volumeChanged,
        onUpdate: (_old, volume) => volumeChanged(volume),
        onDelete: volumeChanged,
      }),
      this.classes.addEventHandler({
        onAdd: () => limits.storageClassChanged(),
        onUpdate: () => limits.storageClassChanged(),
        onDelete: () => limits.storageClassChanged(),
      }),
      this.attachments.addEventHandler({
        onAdd: attachmentChanged,
        onUpdate: (old, attachment) => {
          attachmentChanged(old);
          attachmentChanged(attachment);
        },
        onDelete: attachmentChanged,
      }),
    ];
  }

  /** A pod event can move the pod on or off a node, bound or assumed: those nodes' volume counts are redone. */
  private podNodesChanged(oldPod: Pod | undefined, newPod: Pod): void {
    const oldNode = oldPod?.spec?.nodeName;
    const newNode = newPod.spec?.nodeName;
    if (oldNode) this.volumeLimits.nodeChanged(oldNode);
    if (newNode && newNode !== oldNode) this.volumeLimits.nodeChanged(newNode);
    const assumedNode = this.cache.assumedNode(objectKey(newPod));
    if (assumedNode !== undefined) this.volumeLimits.nodeChanged(assumedNode);
  }

  private wake(pods: WokenPods): void {
    if (pods === "all") this.queue.moveAllToActiveOrBackoff();
    else this.queue.movePodsToActiveOrBackoff(pods);
  }

  private podAdded(pod: Pod): void {
    this.podNodesChanged(undefined, pod);
    if (this.isPendingForUs(pod)) this.queue.add(objectKey(pod));
  }

  private podUpdated(oldPod: Pod, newPod: Pod): void {
    if (mayChangeNodeCounts(oldPod, newPod)) this.podNodesChanged(oldPod, newPod);
    const key = objectKey(newPod);
    if (newPod.spec?.nodeName) this.cache.forget(key);
    if (!this.isPendingForUs(newPod)) {
      // Bound (by us or anyone), finished or being deleted: an attempt in flight settles itself.
      if (this.queue.location(key) !== "inFlight") this.queue.delete(key);
      return;
    }
    if (!this.queue.has(key)) this.queue.add(key);
    else if (podSpecChanged(oldPod, newPod)) this.queue.updated(key);
  }

  private podDeleted(pod: Pod): void {
    this.podNodesChanged(undefined, pod);
    const key = objectKey(pod);
    this.queue.delete(key);
    this.cache.forget(key);
    // An assigned pod's claims no longer count against its node's volume limits.
    if (pod.spec?.nodeName && usesClaims(pod)) this.queue.moveAllToActiveOrBackoff();
  }

  private async run(): Promise<void> {
    const informers = [
      this.pods,
      this.nodes,
      this.claims,
      this.volumes,
      this.classes,
      this.csiDrivers,
      this.capacities,
      this.csiNodes,
      this.attachments,
    ];
    const synced = await Promise.all(informers.map((informer) => informer.waitForSync()));
    if (!synced.every(Boolean)) return;
    for (let queued = await this.queue.pop(); queued !== undefined; queued = await this.queue.pop()) {
      this.scheduleOne(queued);
    }
  }

  /** The scheduling cycle of one pod; the binding cycle it starts runs on its own. */
  private scheduleOne(queued: QueuedPod): void {
    const { namespace, name } = splitObjectKey(queued.key);
    const pod = this.pods.lister.get(namespace, name);
    if (pod === undefined || !this.isPendingForUs(pod) || this.cache.isAssumed(queued.key)) {
      this.queue.done(queued);
      return;
    }
    let result: ReturnType<PodPlacement["place"]>;
    try {
      result = this.placement.place(pod);
    } catch (error) {
      this.handleFailure(queued, pod, podReasonSchedulerError, errorMessage(error), true);
      return;
    }
    if (result.kind === "unschedulable") {
      this.handleFailure(queued, pod, podReasonUnschedulable, result.message, false);
      return;
    }
    this.cache.assume(queued.key, pod.metadata?.uid ?? "", result.nodeName);
    const assumed = this.assumeVolumes(result.podVolumes, result.nodeName);
    const cycle = this.bindingCycle(queued, pod, result.nodeName, assumed);
    this.bindingCycles.add(cycle);
    void cycle.finally(() => this.bindingCycles.delete(cycle));
  }

  /** Reserve (AssumePodVolumes): the decisions as the objects to write, visible to the next pods at once. */
  private assumeVolumes(podVolumes: PodVolumes, nodeName: string): PodVolumes {
    return {
      staticBindings: podVolumes.staticBindings.map(({ volume, claim }) => {
        const bound = volumeBoundToClaim(volume, claim);
        this.assumedVolumes.assume(bound.metadata?.name ?? "", bound);
        return { volume: bound, claim };
      }),
      dynamicProvisions: podVolumes.dynamicProvisions.map((claim) => {
        const selected = claimWithSelectedNode(claim, nodeName);
        this.assumedClaims.assume(objectKey(selected), selected);
        return selected;
      }),
    };
  }

  /** Unreserve: forget the volume decisions of a pod whose binding failed. */
  private revertVolumes(podVolumes: PodVolumes): void {
    for (const { volume } of podVolumes.staticBindings) {
      this.assumedVolumes.restore(volume.metadata?.name ?? "");
    }
    for (const claim of podVolumes.dynamicProvisions) {
      this.assumedClaims.restore(objectKey(claim));
    }
  }

  private async bindingCycle(queued: QueuedPod, pod: Pod, nodeName: string, podVolumes: PodVolumes): Promise<void> {
    const namespace = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    try {
      if (!allVolumesBound(podVolumes)) await this.preBindVolumes(pod, nodeName, podVolumes);
      await this.bindPod(pod, nodeName);
    } catch (error) {
      this.revertVolumes(podVolumes);
      this.cache.forget(queued.key, pod.metadata?.uid ?? "");
      this.handleFailure(queued, pod, podReasonSchedulerError, errorMessage(error), true);
      return;
    }
    this.recorder.event(pod, "Normal", reasonScheduled, `Successfully assigned ${namespace}/${name} to ${nodeName}`);
    this.queue.done(queued);
  }

  private async preBindVolumes(pod: Pod, nodeName: string, podVolumes: PodVolumes): Promise<void> {
    try {
      await this.binder.bindPodVolumes(pod, nodeName, podVolumes);
    } catch (error) {
      throw new Error(`running PreBind plugin "VolumeBinding": ${errorMessage(error)}`);
    }
  }

  private async bindPod(pod: Pod, nodeName: string): Promise<void> {
    const meta = pod.metadata ?? {};
    try {
      await this.context.client.pods.bind(meta.namespace ?? "", meta.name ?? "", nodeName, { uid: meta.uid ?? "" });
    } catch (error) {
      throw new Error(`running Bind plugin "DefaultBinder": ${errorMessage(error)}`);
    }
  }

  /**
   * handleSchedulingFailure: tells the user (event, condition) and puts the pod back in the queue,
   * unless it was deleted or bound meanwhile.
   */
  private handleFailure(queued: QueuedPod, pod: Pod, reason: string, message: string, isError: boolean): void {
    const text = truncateMessage(message);
    this.recorder.event(pod, "Warning", reasonFailedScheduling, text);
    const current = this.pods.lister.get(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
    const samePod = current !== undefined && current.metadata?.uid === pod.metadata?.uid;
    if (current === undefined || !samePod || !this.isPendingForUs(current)) {
      this.queue.done(queued);
      return;
    }
    this.queue.requeueFailed(queued, isError);
    const write = this.markUnschedulable(current, reason, text);
    this.conditionWrites.add(write);
    void write.finally(() => this.conditionWrites.delete(write));
  }

  /** PodScheduled=False with the reason and message; written only when it changes. */
  private async markUnschedulable(pod: Pod, reason: string, message: string): Promise<void> {
    const condition = { type: "PodScheduled", status: "False", reason, message };
    const { status, changed } = updatePodCondition(pod.status, condition, this.context.clock.now());
    if (!changed) return;
    const meta = pod.metadata ?? {};
    try {
      await this.context.client.pods.patch(
        meta.namespace ?? "",
        meta.name ?? "",
        { status: { conditions: status.conditions ?? [] } },
        { subresource: "status" },
      );
    } catch (error) {
      if (isNotFound(error)) return;
      this.logger.error("failed to record the pod's PodScheduled condition", { pod: objectKey(pod), error });
    }
  }
}
