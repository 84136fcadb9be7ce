/**
 * One simulated node joined to an API server over HTTPS — what `kvol node` runs: a machine of its
 * own simulated world (SimHost) with a real kubelet on it (SimNodeAgent), talking to the server
 * through HttpClient as `system:node:<name>`, on the wall clock. Its kubelet server (logs, and
 * exec running the simulated command) listens on a real port, reported in the Node's status.
 *
 * The node's world is its own: volumes that need nothing from outside the machine (hostPath, local,
 * emptyDir, configMap, secret, projected) work; simulated cloud disks and storage servers live in
 * `kvol up`'s single world and need it.
 */
import { randomInt } from "node:crypto";
import { HttpClient } from "../../api/client/http-client.ts";
import { timersWith } from "../../api/timers.ts";
import { startKubeletServer } from "../../cmd/kubelet-endpoint.ts";
import { nodeAddressWhenServerReachable } from "../../cmd/node-address.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { SimWorld } from "../../host/sim/sim-world.ts";
import type { KubeletServer } from "../../kubelet/server/kubelet-server.ts";
import { nodeStreaming } from "../../kubelet/server/node-streaming.ts";
import { SimNodeAgent } from "../../kubelet/sim-node-agent.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";

const maxSeed = 2 ** 31 - 1;

interface RemoteNodeOptions {
  serverUrl: string;
  /** The certificate authority of an https:// server (PEM). */
  caPem?: string;
  nodeName: string;
  token: string;
  clock: RealClock;
  logger: Logger;
  /** The kubelet server's port; 0 picks a free one. */
  kubeletPort: number;
  /** The address reported as InternalIP; by default the one this machine reaches the server from. */
  nodeIp: string | undefined;
}

export class RemoteNode {
  private readonly rng = new Rng(randomInt(1, maxSeed));
  private readonly host: SimHost;
  private agentStarted: SimNodeAgent | undefined;
  private kubeletServer: KubeletServer | undefined;
  private stopped = false;

  constructor(private readonly options: RemoteNodeOptions) {
    const world = new SimWorld(options.clock, this.rng.stream("world"));
    this.host = world.addNode(options.nodeName);
  }

  get agent(): SimNodeAgent | undefined {
    return this.agentStarted;
  }

  /**
   * Starts the kubelet server and the kubelet; resolves once it has registered the Node, waiting
   * for the API server as long as it takes, or once `stop` was called.
   */
  async start(): Promise<void> {
    const { options } = this;
    const address =
      options.nodeIp ??
      (await nodeAddressWhenServerReachable({
        ...options,
        serverUrls: options.serverUrl,
        keepTrying: () => !this.stopped,
      }));
    if (address === undefined) return;
    const server = await startKubeletServer({ ...options, port: options.kubeletPort }, address);
    this.kubeletServer = server;
    if (this.stopped) {
      await server.close();
      return;
    }
    const agent = new SimNodeAgent({
      host: this.host,
      client: new HttpClient({
        url: options.serverUrl,
        bearerToken: options.token,
        ...(options.caPem === undefined ? {} : { caPem: options.caPem }),
      }),
      clock: options.clock,
      rng: this.rng.stream(`node-agent/${options.nodeName}`),
      logger: options.logger,
      timers: timersWith({}),
      kubelet: { address, kubeletPort: server.port },
    });
    this.agentStarted = agent;
    server.serveDebugState(async () => agent.kubelet?.debugState());
    server.serveMetrics(() => agent.kubelet?.metrics);
    server.serveStatsSummary(async () => agent.kubelet?.statsSummary());
    await agent.start();
    const kubelet = agent.kubelet;
    if (kubelet !== undefined) {
      server.serve(
        nodeStreaming({
          clock: options.clock,
          host: this.host,
          podManager: kubelet.podManager,
          runtime: kubelet.runtime,
        }),
      );
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.kubeletServer?.close();
    await this.agentStarted?.stop();
  }
}
