/**
 * The attach/detach controller's metrics, named as kube-controller-manager registers them (the
 * subsystem `attach_detach_controller` in front of the metric's own `attachdetach_controller_…`
 * name, as Kubernetes has done since 1.28 added the `reason` label).
 */
import type { Counter, Gauge } from "prom-client";
import type { Metrics } from "../../runtime/metrics.ts";
import { qualifiedPluginName } from "../../volume/qualified-plugin-name.ts";
import { type WorldStateVolumes, worldStateVolumesGauge } from "../../volume/world-state-volumes-gauge.ts";

export { qualifiedPluginName };

/** Why a volume was detached without waiting for the node to unmount it. */
export type ForcedDetachReason = "timeout" | "out-of-service";

export function forcedDetachesCounter(metrics: Metrics): Counter {
  return metrics.counter({
    name: "attach_detach_controller_attachdetach_controller_forced_detaches",
    help: "Number of times the A/D Controller performed a forced detach",
    labelNames: ["reason"],
  });
}

/**
 * attachdetach_controller_total_volumes: the volumes in the desired and the actual state of the
 * world by plugin, counted at each scrape (Kubernetes' collector does the same).
 */
export function totalVolumesGauge(metrics: Metrics, states: WorldStateVolumes): Gauge {
  return worldStateVolumesGauge(
    metrics,
    { name: "attachdetach_controller_total_volumes", help: "Number of volumes in A/D Controller" },
    states,
  );
}
