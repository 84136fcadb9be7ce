/**
 * The node heartbeat Lease (pkg/kubelet/nodelease, component-helpers lease controller): the kubelet
 * keeps `kube-node-lease/<node>` with itself as holder and renews `spec.renewTime` every
 * `nodeLeaseRenewIntervalMs` (a quarter of the 40 s lease duration). A failed renewal is retried
 * from 200 ms doubling to 7 s until it succeeds. The Lease is owned by the Node, so it goes with it.
 * The node lifecycle controller reads renewTime to decide whether the node is alive.
 */

import type { Lease } from "kubernetes-types/coordination/v1.js";
import type { Client } from "../../api/client/client.ts";
import { clone } from "../../api/client/copy.ts";
import { isNotFound } from "../../api/errors.ts";
import { nodeLeaseNamespace } from "../../api/namespaces.ts";
import { type Clock, formatRfc3339Micro, type Timer } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { leaseRetryInitialMs, leaseRetryMaxMs } from "../constants.ts";
import { retryUntilStopped } from "../retry-until-stopped.ts";

interface NodeLeaseOptions {
  client: Client;
  clock: Clock;
  logger: Logger;
  nodeName: string;
  renewIntervalMs: number;
  leaseDurationSeconds: number;
}

export class NodeLease {
  private readonly options: NodeLeaseOptions;
  private timer: Timer | undefined;
  private stopped = false;
  /** The Lease as last written, reused for the next renewal (a conflict refetches it). */
  private latest: Lease | undefined;

  constructor(options: NodeLeaseOptions) {
    this.options = options;
  }

  /** Renews now and then every renewal interval. */
  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimer(delayMs, () => {
      this.timer = undefined;
      void this.renewWithRetries();
    });
  }

  private async renewWithRetries(): Promise<void> {
    const { clock, logger } = this.options;
    await retryUntilStopped(
      {
        clock,
        initialMs: leaseRetryInitialMs,
        maxMs: leaseRetryMaxMs,
        keepTrying: () => !this.stopped,
        onFailure: (error, retryInMs) => {
          // Read the Lease again next time: a conflict means ours is out of date.
          this.latest = undefined;
          logger.error("Failed to update lease", { error, retryInMs });
        },
      },
      () => this.renew(),
    );
    this.schedule(this.options.renewIntervalMs);
  }

  private async renew(): Promise<void> {
    const leases = this.options.client.leases;
    const current = this.latest ?? (await this.getOrCreate());
    const renewed = clone(current);
    renewed.spec = { ...renewed.spec, holderIdentity: this.options.nodeName, renewTime: this.now() };
    const owners = await this.ownerReferences(current);
    if (owners.length > 0) renewed.metadata = { ...renewed.metadata, ownerReferences: owners };
    this.latest = await leases.update(renewed);
  }

  private async getOrCreate(): Promise<Lease> {
    const { client, nodeName, leaseDurationSeconds } = this.options;
    try {
      return await client.leases.get(nodeLeaseNamespace, nodeName);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return client.leases.create({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: nodeName, namespace: nodeLeaseNamespace },
      spec: { holderIdentity: nodeName, leaseDurationSeconds, renewTime: this.now() },
    });
  }

  /** The Node as owner (once the Node exists), so deleting the Node deletes its Lease. */
  private async ownerReferences(lease: Lease) {
    const existing = lease.metadata?.ownerReferences;
    if (existing !== undefined && existing.length > 0) return [...existing];
    try {
      const node = await this.options.client.nodes.get("", this.options.nodeName);
      const uid = node.metadata?.uid;
      return uid === undefined ? [] : [{ apiVersion: "v1", kind: "Node", name: this.options.nodeName, uid }];
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }

  private now(): string {
    return formatRfc3339Micro(this.options.clock.now());
  }
}
