/**
 * The `addNode` timeline step: the machine is added and its kubelet starts. The kubelet registers
 * its Node through the node's own API connection, which a fault may slow (`api-latency`); that
 * needs the clock to move, and the runner performs a step between two moves of virtual time, so
 * waiting there for the registration would wait forever. The step therefore waits only for what
 * finishes at this instant (a registration through a healthy API does) and leaves the rest to go
 * on on the cluster's time, as a fault's aftermath does; a later failure is logged.
 */

import type { Cluster } from "../../cmd/cluster.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { NodeSpec } from "../scenario/model.ts";
import { addScenarioNode } from "./build-cluster.ts";

/** Adds the node; rejects when joining fails at once, resolves while a slow registration goes on. */
export async function joinScenarioNode(cluster: Cluster, node: NodeSpec): Promise<void> {
  let stepDone = false;
  let failure: { readonly error: unknown } | undefined;
  // Handlers are attached at once, so a failure while the instant settles is never unhandled.
  addScenarioNode(cluster, node).catch((error: unknown) => {
    if (!stepDone) failure = { error };
    else cluster.logger.error(`node ${node.name} joining the cluster failed`, { error: errorMessage(error) });
  });
  await cluster.clock.advanceBy(0);
  stepDone = true;
  if (failure !== undefined) throw failure.error;
}
