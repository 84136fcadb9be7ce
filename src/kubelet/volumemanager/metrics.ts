/**
 * volume_manager_total_volumes (Kubernetes' pkg/kubelet/volumemanager/metrics): the volumes of the
 * desired and the actual state of the world by qualified plugin, one per pod and volume, counted
 * at each scrape as upstream's collector does.
 */
import type { Gauge } from "prom-client";
import type { Metrics } from "../../runtime/metrics.ts";
import { type WorldStateVolumes, worldStateVolumesGauge } from "../../volume/world-state-volumes-gauge.ts";

export function volumeManagerTotalVolumesGauge(metrics: Metrics, states: WorldStateVolumes): Gauge {
  return worldStateVolumesGauge(
    metrics,
    { name: "volume_manager_total_volumes", help: "Number of volumes in Volume Manager" },
    states,
  );
}
