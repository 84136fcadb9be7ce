/**
 * The API server's way to the states of the controllers running in its own process
 * (`/debug/controllers/<name>`): the running instance of the named controller, so after a restart
 * of the controller manager, or a change of leader, the state read is the one acting now. A server
 * whose controllers do not run (another server holds the leader Lease) says so.
 */

import type { ControllerStates } from "../../apiserver/debug-endpoints.ts";
import type { Cluster } from "../../cmd/cluster.ts";

export function clusterControllerStates(cluster: Cluster): ControllerStates {
  return {
    stateOf(name: string): object | undefined {
      return cluster.controllers.find((controller) => controller.name === name)?.debugState?.();
    },
    notRunningReason(): string | undefined {
      if (cluster.controllers.length > 0) return undefined;
      return (
        "the controllers do not run on this API server: it does not hold the Lease " +
        "kube-system/kube-controller-manager; ask the server that does (kubectl get lease -n kube-system kube-controller-manager)"
      );
    },
  };
}
