/**
 * A test stand-in for the two things a kubelet does to show its node is alive, for nodes that run
 * no node agent (the stand-in kubelet, `agent: "heartbeat"`): renew the node's Lease in `kube-node-lease` every `nodeLeaseRenewIntervalMs`
 * (10 s), and keep the node's Ready condition True — written when it is not, or when the last
 * heartbeat is older than `nodeStatusReportFrequencyMs` (5 min), as the kubelet does. Stopping it
 * is the simulated power-off: the node lifecycle controller sees the Lease go stale.
 */

import type { Client } from "../api/client/client.ts";
import { isNotFound } from "../api/errors.ts";
import { nodeLeaseNamespace } from "../api/namespaces.ts";
import type { Lease, Node } from "../api/objects.ts";
import type { Timers } from "../api/timers.ts";
import { nodeStatusReportFrequencyMs, readyConditionMessage, readyConditionReason } from "../kubelet/constants.ts";
import { type Clock, formatRfc3339, formatRfc3339Micro, parseRfc3339, type Timer } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";

type NodeCondition = NonNullable<NonNullable<Node["status"]>["conditions"]>[number];

export interface NodeHeartbeatOptions {
  client: Client;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  nodeName: string;
}

/** The Ready condition a healthy kubelet reports, keeping the transition time while it stays True. */
export function readyCondition(previous: NodeCondition | undefined, nowMs: number): NodeCondition {
  const now = formatRfc3339(nowMs);
  return {
    type: "Ready",
    status: "True",
    reason: readyConditionReason,
    message: readyConditionMessage,
    lastHeartbeatTime: now,
    lastTransitionTime: previous?.status === "True" ? (previous.lastTransitionTime ?? now) : now,
  };
}

export class NodeHeartbeat {
  private readonly options: NodeHeartbeatOptions;
  private loops: Timer[] = [];

  constructor(options: NodeHeartbeatOptions) {
    this.options = options;
  }

  get running(): boolean {
    return this.loops.length > 0;
  }

  start(): void {
    if (this.running) return;
    const { clock, timers } = this.options;
    this.loops = [
      clock.every(timers.nodeLeaseRenewIntervalMs, () => this.guarded("renew the node lease", () => this.renewLease())),
      clock.every(timers.nodeStatusUpdateFrequencyMs, () => this.guarded("post node status", () => this.postStatus())),
    ];
  }

  stop(): void {
    for (const loop of this.loops) loop.cancel();
    this.loops = [];
  }

  private async guarded(what: string, pass: () => Promise<void>): Promise<void> {
    try {
      await pass();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.options.logger.warn(`failed to ${what}; trying again next period`, {
        node: this.options.nodeName,
        error: why,
      });
    }
  }

  private async renewLease(): Promise<void> {
    const { client, clock, nodeName, timers } = this.options;
    const renewTime = formatRfc3339Micro(clock.now());
    try {
      await client.leases.mutate(nodeLeaseNamespace, nodeName, (draft) => {
        draft.spec = { ...draft.spec, holderIdentity: nodeName, renewTime };
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const node = await client.nodes.get("", nodeName);
      await client.leases.create(newLease(node, timers.nodeLeaseDurationSeconds, renewTime));
    }
  }

  private async postStatus(): Promise<void> {
    const { client, clock, nodeName } = this.options;
    const nowMs = clock.now();
    await client.nodes.mutate(
      "",
      nodeName,
      (draft) => {
        const conditions = draft.status?.conditions ?? [];
        const ready = conditions.find((condition) => condition.type === "Ready");
        const lastHeartbeatMs = parseRfc3339(ready?.lastHeartbeatTime ?? "");
        const fresh = ready?.status === "True" && nowMs - lastHeartbeatMs < nodeStatusReportFrequencyMs;
        if (fresh) return;
        const others = conditions.filter((condition) => condition.type !== "Ready");
        draft.status = { ...draft.status, conditions: [...others, readyCondition(ready, nowMs)] };
      },
      { subresource: "status" },
    );
  }
}

/** The Lease a kubelet creates for its node, owned by the Node so it goes when the Node goes. */
function newLease(node: Node, durationSeconds: number, renewTime: string): Lease {
  const nodeName = node.metadata?.name ?? "";
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      namespace: nodeLeaseNamespace,
      name: nodeName,
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: nodeName, uid: node.metadata?.uid ?? "" }],
    },
    spec: { holderIdentity: nodeName, leaseDurationSeconds: durationSeconds, renewTime },
  };
}
