/**
 * The API faults of one cluster: a latency added to every request its components make, and nodes
 * cut off from the API server. The cluster hands its controllers one client and each node agent its
 * own, all made here, so `api-latency` reaches every component and `node-partition` exactly one node.
 * Requests a user makes through `cluster.client` (kubectl's view) are left alone.
 */
import type { Client } from "../../api/client/client.ts";
import type { Clock } from "../../runtime/clock.ts";
import { ApiConnection } from "./api-connection.ts";
import { FaultyClient } from "./faulty-client.ts";

export class ApiFaults {
  private latencyNowMs = 0;
  private readonly nodeConnections = new Map<string, ApiConnection>();

  constructor(private readonly clock: Clock) {}

  /** The latency every component request waits now (0 when the fault is not in place). */
  get latencyMs(): number {
    return this.latencyNowMs;
  }

  setLatency(latencyMs: number): void {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) {
      throw new RangeError(`api latency must be a finite number of milliseconds >= 0, got ${latencyMs}`);
    }
    this.latencyNowMs = latencyMs;
  }

  /** The client for control-plane components (controllers, scheduler, CSI sidecars): latency only. */
  controlPlaneClient(inner: Client): Client {
    return new FaultyClient(inner, this.newConnection());
  }

  /** The client of the agents on node `nodeName`: latency, and cut off while the node is partitioned. */
  nodeClient(inner: Client, nodeName: string): Client {
    let connection = this.nodeConnections.get(nodeName);
    if (connection === undefined) {
      connection = this.newConnection();
      this.nodeConnections.set(nodeName, connection);
    }
    return new FaultyClient(inner, connection);
  }

  /** The node's agents lose the API server: their requests fail and their watches end. */
  partition(nodeName: string): void {
    this.connectionOf(nodeName).cutOff();
  }

  /** The node's agents reach the API server again. */
  reconnect(nodeName: string): void {
    this.connectionOf(nodeName).restore();
  }

  isPartitioned(nodeName: string): boolean {
    return this.nodeConnections.get(nodeName)?.isCutOff ?? false;
  }

  private connectionOf(nodeName: string): ApiConnection {
    const connection = this.nodeConnections.get(nodeName);
    if (connection === undefined) {
      const known = [...this.nodeConnections.keys()].join(", ") || "none";
      throw new Error(`node ${nodeName} has no agent talking to the API server (nodes with agents: ${known})`);
    }
    return connection;
  }

  private newConnection(): ApiConnection {
    return new ApiConnection(this.clock, () => this.latencyNowMs);
  }
}
