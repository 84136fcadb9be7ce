/**
 * The gauge both volume reconcilers export (kube-controller-manager's
 * `attachdetach_controller_total_volumes`, the kubelet's `volume_manager_total_volumes`): the
 * volumes of the desired and the actual state of the world by qualified plugin, counted at each
 * scrape as upstream's collectors do.
 */
import type { Gauge } from "prom-client";
import type { Metrics } from "../runtime/metrics.ts";
import { qualifiedPluginName } from "./qualified-plugin-name.ts";

export interface WorldStateVolumes {
  desired: () => readonly { volumeName: string }[];
  actual: () => readonly { volumeName: string }[];
}

export function worldStateVolumesGauge(
  metrics: Metrics,
  metric: { name: string; help: string },
  states: WorldStateVolumes,
): Gauge {
  return metrics.gauge({
    ...metric,
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
