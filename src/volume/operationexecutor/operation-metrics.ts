/**
 * storage_operation_duration_seconds (Kubernetes' pkg/volume/util/metrics.go): how long each
 * operation of the operation executor took, by qualified plugin, operation name, status
 * (`success` or `fail-unknown`, upstream's only two values) and whether the volume was migrated
 * from an in-tree plugin (never here: kvol has no in-tree plugins to migrate). Durations come from
 * the Clock, so a simulation observes the same values run after run.
 */
import type { Histogram } from "prom-client";
import type { Clock } from "../../runtime/clock.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import { qualifiedPluginName } from "../qualified-plugin-name.ts";
import type { OperationFunc } from "./nested-pending-operations.ts";

/** Upstream's buckets for storage operations, in seconds (100 ms to 10 min). */
const storageOperationBucketsSeconds = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 25, 50, 120, 300, 600] as const;

export function storageOperationHistogram(metrics: Metrics): Histogram {
  return metrics.histogram({
    name: "storage_operation_duration_seconds",
    help: "Storage operation duration",
    labelNames: ["volume_plugin", "operation_name", "status", "migrated"],
    bucketsSeconds: storageOperationBucketsSeconds,
  });
}

/** `operation`, observing its duration under the volume's plugin and the operation's name when it ends. */
export function timedOperation(
  histogram: Histogram,
  clock: Clock,
  uniqueVolumeName: string,
  operationName: string,
  operation: OperationFunc,
): OperationFunc {
  return async () => {
    const startMs = clock.now();
    let status = "fail-unknown";
    try {
      await operation();
      status = "success";
    } finally {
      histogram.observe(
        {
          volume_plugin: qualifiedPluginName(uniqueVolumeName),
          operation_name: operationName,
          status,
          migrated: "false",
        },
        (clock.now() - startMs) / 1000,
      );
    }
  };
}
