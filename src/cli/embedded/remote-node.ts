/**
 * One simulated node joined to an API server over HTTP — what `kvol node` runs: a machine of its
 * own simulated world (SimHost) with a real kubelet on it (SimNodeAgent), talking to the server
 * through HttpClient as `system:node:<name>`, on the wall clock.
 *
 * The node's world is its own: volumes that need nothing from outside the machine (hostPath, local,
 * emptyDir, configMap, secret, projected) work; simulated cloud disks and storage servers live in
 * `kvol up`'s single world and need it.
 */
import { randomInt } from "node:crypto";
import { HttpClient } from "../../api/client/http-client.ts";
import { timersWith } from "../../api/timers.ts";
import { SimWorld } from "../../host/sim/sim-world.ts";
import { SimNodeAgent } from "../../kubelet/sim-node-agent.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";

const maxSeed = 2 ** 31 - 1;

export interface RemoteNodeOptions {
  serverUrl: string;
  nodeName: string;
  token: string;
  clock: RealClock;
  logger: Logger;
}

export class RemoteNode {
  readonly agent: SimNodeAgent;

  constructor(options: RemoteNodeOptions) {
    const rng = new Rng(randomInt(1, maxSeed));
    const world = new SimWorld(options.clock, rng.stream("world"));
    this.agent = new SimNodeAgent({
      host: world.addNode(options.nodeName),
      client: new HttpClient({ url: options.serverUrl, bearerToken: options.token }),
      clock: options.clock,
      rng: rng.stream(`node-agent/${options.nodeName}`),
      logger: options.logger,
      timers: timersWith({}),
    });
  }

  /** Starts the kubelet; resolves once it has registered the Node. */
  start(): Promise<void> {
    return this.agent.start();
  }

  stop(): Promise<void> {
    return this.agent.stop();
  }
}
