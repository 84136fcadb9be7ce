/**
 * Pod garbage collection (pkg/controller/podgc), every `podGcPeriodMs` (20 s). It force-deletes
 * (grace period 0) the pods no kubelet will ever finish:
 *
 * - terminating pods on a node that is not Ready and carries `node.kubernetes.io/out-of-service`
 *   (an administrator's declaration that the node is shut down for good: non-graceful node shutdown);
 * - orphaned pods, bound to a node that no longer exists — after the node has been missing for
 *   `podGcQuarantineMs` (40 s) and the API server confirms it is gone, since an informer may just be
 *   behind; these get the DisruptionTarget condition `DeletionByPodGC`;
 * - terminating pods that never reached a node.
 *
 * Before deleting, a pod that has not finished is marked `Failed`, so it does not look Running
 * forever. Pod GC emits no events (Kubernetes logs only). The threshold-based collection of
 * finished pods (`--terminated-pod-gc-threshold`, 12,500) is not modelled.
 */
import { isNotFound } from "../../api/errors.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import { type Node, objectKey, type Pod } from "../../api/objects.ts";
import { type PodCondition, updatePodCondition } from "../../api/pod-conditions.ts";
import { taintKeyExists, taintNodeOutOfService } from "../../api/scheduling/taints.ts";
import type { Timer } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Controller, ControllerContext } from "../controller-context.ts";
import {
  conditionDisruptionTarget,
  messagePodGcNodeGone,
  podGcControllerName,
  reasonDeletionByPodGc,
} from "./constants.ts";

function isNodeReady(node: Node): boolean {
  return (
    node.status?.conditions?.some((condition) => condition.type === "Ready" && condition.status === "True") ?? false
  );
}

function byKey(a: Pod, b: Pod): number {
  const left = objectKey(a);
  const right = objectKey(b);
  if (left === right) return 0;
  return left < right ? -1 : 1;
}

export class PodGcController implements Controller {
  readonly name = podGcControllerName;
  private readonly context: ControllerContext;
  private readonly logger: Logger;
  private readonly pods: SharedInformer<Pod>;
  private readonly nodes: SharedInformer<Node>;
  /** Missing node name → when its quarantine ends (the delayed nodeQueue). */
  private readonly quarantine = new Map<string, number>();
  private timer: Timer | undefined;
  private pass: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;

  constructor(context: ControllerContext) {
    this.context = context;
    this.logger = context.logger.with({ component: this.name });
    this.pods = context.informers.informerFor("Pod");
    this.nodes = context.informers.informerFor("Node");
  }

  start(): void {
    this.starting ??= this.startWhenSynced();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.starting;
    await this.pass;
  }

  private async startWhenSynced(): Promise<void> {
    const synced = await Promise.all([this.pods.waitForSync(), this.nodes.waitForSync()]);
    if (!synced.every(Boolean) || this.stopped) return;
    this.timer = this.context.clock.every(this.context.timers.podGcPeriodMs, () => {
      this.pass = this.collect();
      return this.pass;
    });
  }

  /** One pass: listing the cache is what podgc does too; it costs no API call. */
  private async collect(): Promise<void> {
    const pods = this.pods.lister.list().sort(byKey);
    await this.collectTerminatingOnOutOfServiceNodes(pods);
    await this.collectOrphans(pods);
    await this.collectUnscheduledTerminating(pods);
  }

  private async collectTerminatingOnOutOfServiceNodes(pods: readonly Pod[]): Promise<void> {
    for (const pod of pods) {
      if (!pod.metadata?.deletionTimestamp || !pod.spec?.nodeName) continue;
      const node = this.nodes.lister.get("", pod.spec.nodeName);
      if (node === undefined) continue;
      if (isNodeReady(node) || !taintKeyExists(node.spec?.taints, taintNodeOutOfService)) continue;
      await this.forceDelete(pod, undefined);
    }
  }

  private async collectOrphans(pods: readonly Pod[]): Promise<void> {
    const nowMs = this.context.clock.now();
    for (const pod of pods) {
      const nodeName = pod.spec?.nodeName;
      if (!nodeName || this.nodes.lister.get("", nodeName) !== undefined || this.quarantine.has(nodeName)) continue;
      this.quarantine.set(nodeName, nowMs + this.context.timers.podGcQuarantineMs);
    }
    const deletedNodes = await this.confirmDeletedNodes(nowMs);
    if (deletedNodes.size === 0) return;
    const condition = {
      type: conditionDisruptionTarget,
      status: "True",
      reason: reasonDeletionByPodGc,
      message: messagePodGcNodeGone,
    };
    for (const pod of pods) {
      if (deletedNodes.has(pod.spec?.nodeName ?? "")) await this.forceDelete(pod, condition);
    }
  }

  /** discoverDeletedNodes: quarantined names whose time is up and that the API server does not know. */
  private async confirmDeletedNodes(nowMs: number): Promise<Set<string>> {
    const deleted = new Set<string>();
    for (const [nodeName, releaseAtMs] of [...this.quarantine]) {
      if (releaseAtMs > nowMs) continue;
      this.quarantine.delete(nodeName);
      if (this.nodes.lister.get("", nodeName) !== undefined) continue;
      try {
        await this.context.client.nodes.get("", nodeName);
      } catch (error) {
        if (isNotFound(error)) deleted.add(nodeName);
        // Any other error: the name is quarantined again on the next pass.
        else this.logger.warn("could not check whether the node exists", { node: nodeName, error });
      }
    }
    return deleted;
  }

  private async collectUnscheduledTerminating(pods: readonly Pod[]): Promise<void> {
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp && !pod.spec?.nodeName) await this.forceDelete(pod, undefined);
    }
  }

  /** markFailedAndDeletePodWithCondition: phase Failed (plus the condition), then delete with grace 0. */
  private async forceDelete(pod: Pod, condition: Omit<PodCondition, "lastTransitionTime"> | undefined): Promise<void> {
    const namespace = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    const pods = this.context.client.pods;
    this.logger.info("PodGC is force deleting Pod", { pod: objectKey(pod) });
    try {
      const phase = pod.status?.phase;
      if (phase !== "Succeeded" && phase !== "Failed") {
        const conditions =
          condition === undefined
            ? pod.status?.conditions
            : updatePodCondition(pod.status, condition, this.context.clock.now()).status.conditions;
        await pods.patch(
          namespace,
          name,
          { status: { phase: "Failed", ...(conditions ? { conditions } : {}) } },
          { subresource: "status" },
        );
      }
      await pods.delete(namespace, name, { gracePeriodSeconds: 0 });
    } catch (error) {
      if (isNotFound(error)) return;
      this.logger.error("failed to force delete the pod", { pod: objectKey(pod), error });
    }
  }
}
