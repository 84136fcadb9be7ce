/**
 * What a fault sets off — a machine booting, a kubelet starting and registering, a plugin coming
 * back — takes time on the cluster's clock, so a fault does not wait for it. The scenario runner
 * calls `inject` between two steps of virtual time; waiting there for something that needs the
 * clock to move (a registration through a slow or cut-off API, a kubelet finishing an operation that
 * hangs on an NFS server) would wait forever. The fault itself has happened when `inject` returns
 * (the power is off, the process is dead); its aftermath runs on, and a failure is logged.
 */

import type { Cluster } from "../../cmd/cluster.ts";
import { errorMessage } from "../../runtime/error-message.ts";

export function letAftermathRun(cluster: Cluster, what: string, aftermath: Promise<void>): void {
  aftermath.catch((error: unknown) => cluster.logger.error(`${what} failed`, { error: errorMessage(error) }));
}
