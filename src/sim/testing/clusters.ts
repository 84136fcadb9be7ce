/**
 * Starting clusters in tests: each one started through `clusterPerTest` is stopped after its test,
 * passed or failed, so no controller, kubelet or timer of one test runs on into the next.
 */
import { afterEach } from "node:test";
import { Cluster, type ClusterOptions } from "../../cmd/cluster.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";

/**
 * Clusters started here check the quiet-timer contract (VirtualClock `checkQuietTimers`) unless the
 * test brings its own clock. Call in a suite (or at the top of a test file): returns how its tests start a cluster, and
 * registers the `afterEach` that stops the clusters they started.
 */
export function clusterPerTest(): (options?: ClusterOptions) => Promise<Cluster> {
  const started: Cluster[] = [];
  afterEach(async () => {
    for (const cluster of started.splice(0)) await cluster.stop();
  });
  return async (options = {}) => {
    const cluster = await Cluster.start({ clock: new VirtualClock({ checkQuietTimers: true }), ...options });
    started.push(cluster);
    return cluster;
  };
}
