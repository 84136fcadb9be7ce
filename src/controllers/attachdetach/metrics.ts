/**
 * The attach/detach controller's metrics, named as kube-controller-manager registers them (the
 * subsystem `attach_detach_controller` in front of the metric's own `attachdetach_controller_…`
 * name, as Kubernetes has done since 1.28 added the `reason` label).
 */
import type { Counter } from "prom-client";
import type { Metrics } from "../../runtime/metrics.ts";

/** Why a volume was detached without waiting for the node to unmount it. */
export type ForcedDetachReason = "timeout" | "out-of-service";

export function forcedDetachesCounter(metrics: Metrics): Counter {
  return metrics.counter({
    name: "attach_detach_controller_attachdetach_controller_forced_detaches",
    help: "Number of times the A/D Controller performed a forced detach",
    labelNames: ["reason"],
  });
}
