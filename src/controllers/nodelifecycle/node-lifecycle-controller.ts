/**
 * The node lifecycle controller (pkg/controller/nodelifecycle): turns kubelet heartbeats into node
 * conditions and taints.
 *
 * Every `nodeMonitorPeriodMs` (5 s) it checks each node (node-health.ts). A node not heard from for
 * 40 s gets Ready (and the pressure conditions) set to Unknown, a `NodeNotReady` event, and its pods'
 * Ready condition set to False. On the pass after that, the Ready condition it observed decides the
 * NoExecute taint: `node.kubernetes.io/unreachable` for Unknown, `node.kubernetes.io/not-ready` for
 * False, neither for True — which is what evicts pods (taint-eviction-controller.ts).
 *
 * Independently, every node add or update re-derives the NoSchedule taints from the conditions and
 * the cordon (condition-taints.ts), so the scheduler stops placing pods there at once.
 *
 * Not modelled: zones and their disruption states (Kubernetes slows or stops tainting when a large
 * part of a zone is unhealthy, and rate-limits NoExecute tainting to 0.1 node/s per zone), so every
 * unhealthy node is tainted on the pass that notices it.
 */

import { isConflict, isNotFound } from "../../api/errors.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import { ensureIndex, podsByNode } from "../../api/informer/indexes.ts";
import type { HandlerRegistration, SharedInformer } from "../../api/informer/shared-informer.ts";
import { nodeLeaseNamespace } from "../../api/namespaces.ts";
import type { Lease, Node, Pod } from "../../api/objects.ts";
import { podCondition, updatePodCondition } from "../../api/pod-conditions.ts";
import type { Timer } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { defaultControllerRateLimiter } from "../../runtime/rate-limiter.ts";
import { runWorkers } from "../../runtime/run-workers.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { conditionTaintChanges } from "./condition-taints.ts";
import {
  messagePodNodeNotReady,
  nodeLifecycleControllerName,
  notReadyNoExecuteTaint,
  reasonNodeNotReady,
  reasonRegisteredNode,
  reasonRemovingNode,
  unreachableNoExecuteTaint,
} from "./constants.ts";
import { NodeHealthTracker } from "./node-health.ts";
import { swapNodeTaints } from "./node-taints.ts";

/** scheduler.UpdateWorkerSize: workers deriving NoSchedule taints from node updates. */
const noScheduleTaintWorkers = 8;

export class NodeLifecycleController implements Controller {
  readonly name = nodeLifecycleControllerName;
  private readonly context: ControllerContext;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly nodes: SharedInformer<Node>;
  private readonly leases: SharedInformer<Lease>;
  private readonly pods: SharedInformer<Pod>;
  private readonly health: NodeHealthTracker;
  private readonly noScheduleQueue: WorkQueue<string>;
  /** Nodes seen by the previous monitor pass (knownNodeSet), to report registrations and removals. */
  private readonly knownNodes = new Map<string, Node>();
  private registration: HandlerRegistration | undefined;
  private monitorTimer: Timer | undefined;
  private monitorPass: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(context: ControllerContext) {
    this.context = context;
    this.logger = context.logger.with({ component: this.name });
    this.recorder = recorderFor(context, this.name);
    this.nodes = context.informers.informerFor("Node");
    this.leases = context.informers.informerFor("Lease");
    this.pods = context.informers.informerFor("Pod");
    ensureIndex(this.pods, podsByNode);
    this.health = new NodeHealthTracker({
      monitorGracePeriodMs: context.timers.nodeMonitorGracePeriodMs,
      startupGracePeriodMs: context.timers.nodeStartupGracePeriodMs,
    });
    this.noScheduleQueue = new WorkQueue({
      name: "node-lifecycle-noschedule-taints",
      clock: context.clock,
      rateLimiter: defaultControllerRateLimiter<string>(context.clock),
    });
  }

  start(): void {
    if (this.running !== undefined) return;
    const enqueue = (node: Node) => this.noScheduleQueue.add(node.metadata?.name ?? "");
    this.registration = this.nodes.addEventHandler({ onAdd: enqueue, onUpdate: (_old, node) => enqueue(node) });
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.registration?.remove();
    this.monitorTimer?.cancel();
    this.noScheduleQueue.shutDown();
    await this.running;
    await this.monitorPass;
    await this.recorder.flush();
  }

  private async run(): Promise<void> {
    const synced = await Promise.all([this.nodes, this.leases, this.pods].map((informer) => informer.waitForSync()));
    if (!synced.every(Boolean) || this.stopped) return;
    this.monitorTimer = this.context.clock.every(this.context.timers.nodeMonitorPeriodMs, () => {
      this.monitorPass = this.monitorNodeHealth();
      return this.monitorPass;
    });
    await runWorkers(
      this.noScheduleQueue,
      noScheduleTaintWorkers,
      (name) => this.syncConditionTaints(name),
      (name, error) =>
        this.logger.warn("failed to update the node's NoSchedule taints; retrying", { node: name, error }),
    );
  }

  /** doNoScheduleTaintingPass for one node. */
  private async syncConditionTaints(nodeName: string): Promise<void> {
    const node = this.nodes.lister.get("", nodeName);
    if (node === undefined) return;
    const { add, remove } = conditionTaintChanges(node);
    if (add.length === 0 && remove.length === 0) return;
    await swapNodeTaints(this.context.client, node, add, remove, this.context.clock.now());
  }

  /** One monitor pass over every node. */
  private async monitorNodeHealth(): Promise<void> {
    if (this.stopped) return;
    const nodes = this.nodes.lister.list();
    await this.classifyNodes(nodes);
    for (const node of nodes) {
      if (this.stopped) return;
      try {
        await this.monitorNode(node);
      } catch (error) {
        // One node's failure must not stop the others; the next pass tries it again.
        this.logger.error("failed to check the node's health", { node: node.metadata?.name, error });
      }
    }
  }

  /** Reports nodes that appeared or disappeared since the last pass. */
  private async classifyNodes(nodes: readonly Node[]): Promise<void> {
    const present = new Set(nodes.map((node) => node.metadata?.name ?? ""));
    for (const [name, node] of this.knownNodes) {
      if (present.has(name)) continue;
      this.nodeEvent(node, reasonRemovingNode, `Removing Node ${name} from Controller`);
      this.knownNodes.delete(name);
      this.health.forget(name);
    }
    for (const node of nodes) {
      const name = node.metadata?.name ?? "";
      if (this.knownNodes.has(name)) continue;
      this.nodeEvent(node, reasonRegisteredNode, `Registered Node ${name} in Controller`);
      this.knownNodes.set(name, node);
      // A node new to this controller starts without eviction taints; the next passes add them if due.
      await swapNodeTaints(
        this.context.client,
        node,
        [],
        [unreachableNoExecuteTaint, notReadyNoExecuteTaint],
        this.now(),
      );
    }
  }

  private async monitorNode(node: Node): Promise<void> {
    const name = node.metadata?.name ?? "";
    const lease = this.leases.lister.get(nodeLeaseNamespace, name);
    const verdict = this.health.assess(node, lease, this.now());
    if (verdict.statusUpdate !== undefined) {
      const written = await this.writeStatus(node, verdict.statusUpdate);
      if (!written) return;
    }
    if (verdict.currentReady === undefined) return;
    await this.processTaintBasedEviction(node, verdict.observedReady.status);
    if (verdict.currentReady.status !== "True" && verdict.observedReady.status === "True") {
      this.nodeEvent(node, reasonNodeNotReady, `Node ${name} status is now: ${reasonNodeNotReady}`);
      await this.markPodsNotReady(name);
    }
  }

  /** Writes the Unknown conditions; false when the node moved on meanwhile (the next pass decides again). */
  private async writeStatus(node: Node, status: NonNullable<Node["status"]>): Promise<boolean> {
    try {
      await this.context.client.nodes.updateStatus({ ...node, status });
      return true;
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return false;
      throw error;
    }
  }

  /** The NoExecute taint the observed Ready status calls for, swapping out the opposite one. */
  private async processTaintBasedEviction(node: Node, observedStatus: string): Promise<void> {
    const client = this.context.client;
    switch (observedStatus) {
      case "False":
        return swapNodeTaints(client, node, [notReadyNoExecuteTaint], [unreachableNoExecuteTaint], this.now());
      case "Unknown":
        return swapNodeTaints(client, node, [unreachableNoExecuteTaint], [notReadyNoExecuteTaint], this.now());
      case "True":
        return swapNodeTaints(client, node, [], [unreachableNoExecuteTaint, notReadyNoExecuteTaint], this.now());
      default:
        return;
    }
  }

  /** MarkPodsNotReady: every pod on the node that reports Ready gets Ready=False and a Warning. */
  private async markPodsNotReady(nodeName: string): Promise<void> {
    for (const pod of this.pods.indexer.byIndex(podsByNode.name, nodeName)) {
      const ready = podCondition(pod.status, "Ready");
      if (ready === undefined) continue;
      const { lastTransitionTime: _previous, ...unchanged } = ready;
      const { status, changed } = updatePodCondition(pod.status, { ...unchanged, status: "False" }, this.now());
      if (!changed) continue;
      const meta = pod.metadata ?? {};
      try {
        await this.context.client.pods.patch(
          meta.namespace ?? "",
          meta.name ?? "",
          { status: { conditions: status.conditions ?? [] } },
          { subresource: "status" },
        );
      } catch (error) {
        if (isNotFound(error)) continue;
        throw error;
      }
      this.recorder.event(pod, "Warning", reasonNodeNotReady, messagePodNodeNotReady);
    }
  }

  /** RecordNodeEvent: node events name the node by kind, name and uid only. */
  private nodeEvent(node: Node, reason: string, message: string): void {
    const reference = {
      kind: "Node",
      name: node.metadata?.name ?? "",
      uid: node.metadata?.uid ?? "",
      apiVersion: "v1",
    };
    this.recorder.eventForReference(reference, "Normal", reason, message);
  }

  private now(): number {
    return this.context.clock.now();
  }
}
