/**
 * The node lifecycle controller's view of each node's heartbeats (tryUpdateNodeHealth). A node is
 * heard from when its kubelet posts a new Ready condition heartbeat or renews its Lease in
 * `kube-node-lease`; the controller notes *its own* time of noticing (probeTimestamp), never the
 * kubelet's clock. When nothing was heard for longer than the grace period — 40 s
 * (`--node-monitor-grace-period`), or 60 s for a node that never posted Ready
 * (`--node-startup-grace-period`) — the node's Ready, MemoryPressure, DiskPressure and PIDPressure
 * conditions become Unknown: `NodeStatusUnknown` / "Kubelet stopped posting node status."
 */
import type { NodeCondition, NodeStatus } from "kubernetes-types/core/v1.js";
import type { Lease, Node } from "../../api/objects.ts";
import { jsonEqual } from "../../api/store/json-equal.ts";
import { formatRfc3339, parseRfc3339 } from "../../runtime/clock.ts";
import {
  conditionsSetUnknown,
  messageNodeStatusNeverUpdated,
  messageNodeStatusUnknown,
  reasonNodeStatusNeverUpdated,
  reasonNodeStatusUnknown,
} from "./constants.ts";

interface NodeHealthOptions {
  monitorGracePeriodMs: number;
  startupGracePeriodMs: number;
}

interface NodeHealthVerdict {
  /** Ready as found at the start of the pass (a stand-in Unknown one when the node never posted it). */
  observedReady: NodeCondition;
  /** Ready after the pass; undefined while a node that never posted Ready is within its startup grace. */
  currentReady: NodeCondition | undefined;
  /** The status to write when the conditions had to be set to Unknown. */
  statusUpdate?: NodeStatus;
}

interface NodeHealth {
  /** When the controller last noticed a heartbeat. */
  probeTimestampMs: number;
  /** The Ready condition last seen, to notice a new heartbeat. */
  savedReady: NodeCondition | undefined;
  lease: Lease | undefined;
}

function readyCondition(node: Node): NodeCondition | undefined {
  return node.status?.conditions?.find((condition) => condition.type === "Ready");
}

function creationMs(node: Node): number {
  const text = node.metadata?.creationTimestamp;
  return text === undefined ? 0 : parseRfc3339(text);
}

function renewMs(lease: Lease | undefined): number {
  const text = lease?.spec?.renewTime;
  return text === undefined ? Number.NEGATIVE_INFINITY : parseRfc3339(text);
}

/** The conditions with every controller-managed one set to Unknown at `nowMs`. */
function silencedConditions(node: Node, nowMs: number): NodeCondition[] {
  const conditions = [...(node.status?.conditions ?? [])];
  const now = formatRfc3339(nowMs);
  for (const type of conditionsSetUnknown) {
    const index = conditions.findIndex((condition) => condition.type === type);
    const existing = index >= 0 ? conditions[index] : undefined;
    if (existing === undefined) {
      conditions.push({
        type,
        status: "Unknown",
        reason: reasonNodeStatusNeverUpdated,
        message: messageNodeStatusNeverUpdated,
        ...(node.metadata?.creationTimestamp ? { lastHeartbeatTime: node.metadata.creationTimestamp } : {}),
        lastTransitionTime: now,
      });
    } else if (existing.status !== "Unknown") {
      conditions[index] = {
        ...existing,
        status: "Unknown",
        reason: reasonNodeStatusUnknown,
        message: messageNodeStatusUnknown,
        lastTransitionTime: now,
      };
    }
  }
  return conditions;
}

export class NodeHealthTracker {
  private readonly options: NodeHealthOptions;
  private readonly health = new Map<string, NodeHealth>();

  constructor(options: NodeHealthOptions) {
    this.options = options;
  }

  /** One node's heartbeat check in a monitor pass; `lease` is the node's Lease, if any. */
  assess(node: Node, lease: Lease | undefined, nowMs: number): NodeHealthVerdict {
    const name = node.metadata?.name ?? "";
    const ready = readyCondition(node);
    const created = creationMs(node);
    const observedReady: NodeCondition = ready ?? {
      type: "Ready",
      status: "Unknown",
      ...(node.metadata?.creationTimestamp
        ? { lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: node.metadata.creationTimestamp }
        : {}),
    };
    const gracePeriodMs = ready === undefined ? this.options.startupGracePeriodMs : this.options.monitorGracePeriodMs;
    const health = this.heardFrom(name, ready, created, nowMs);
    if (lease !== undefined && (health.lease === undefined || renewMs(health.lease) < renewMs(lease))) {
      health.lease = lease;
      health.probeTimestampMs = nowMs;
    }
    if (!(nowMs > health.probeTimestampMs + gracePeriodMs)) return { observedReady, currentReady: ready };
    const conditions = silencedConditions(node, nowMs);
    const currentReady = conditions.find((condition) => condition.type === "Ready");
    if (jsonEqual(currentReady, observedReady)) return { observedReady, currentReady };
    return { observedReady, currentReady, statusUpdate: { ...node.status, conditions } };
  }

  forget(nodeName: string): void {
    this.health.delete(nodeName);
  }

  /** Updates the probe time from the Ready condition's heartbeat, as the cases of tryUpdateNodeHealth decide. */
  private heardFrom(name: string, ready: NodeCondition | undefined, createdMs: number, nowMs: number): NodeHealth {
    let health = this.health.get(name);
    if (ready === undefined && health === undefined) {
      // Never posted: measure the startup grace from the node's creation.
      health = { probeTimestampMs: createdMs, savedReady: undefined, lease: undefined };
    }
    const saved = health?.savedReady;
    if (health === undefined || (saved === undefined) !== (ready === undefined)) {
      health = { probeTimestampMs: nowMs, savedReady: ready, lease: health?.lease };
    } else if (saved !== undefined && ready !== undefined && saved.lastHeartbeatTime !== ready.lastHeartbeatTime) {
      health = { probeTimestampMs: nowMs, savedReady: ready, lease: health.lease };
    }
    this.health.set(name, health);
    return health;
  }
}
