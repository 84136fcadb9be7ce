/**
 * volume_manager_total_volumes (Kubernetes' pkg/kubelet/volumemanager/metrics): the volumes of the
 * desired and the actual state of the world by qualified plugin, one per pod and volume, counted
 * at each scrape as upstream's collector does.
 */
import type { Gauge } from "prom-client";
import type { Metrics } from "../../runtime/metrics.ts";
import { qualifiedPluginName } from "../../volume/qualified-plugin-name.ts";

interface VolumeStates {
  desired: () => readonly { volumeName: string }[];
  actual: () => readonly { volumeName: string }[];
}

export function volumeManagerTotalVolumesGauge(metrics: Metrics, states: VolumeStates): Gauge {
  return metrics.gauge({
    name: "volume_manager_total_volumes",
    help: "Number of volumes in Volume Manager",
    labelNames: ["plugin_name", "state"],
    collect: (gauge) => {
      gauge.reset();
      for (const [state, volumes] of [
        ["desired_state_of_world", states.desired()],
        ["actual_state_of_world", states.actual()],
      ] as const) {
        for (const volume of volumes) gauge.inc({ plugin_name: qualifiedPluginName(volume.volumeName), state });
      }
    },
  });
}
