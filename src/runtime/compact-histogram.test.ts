/**
 * A CompactHistogram scrapes exactly as prom-client's Histogram does for the same observations:
 * storage_operation_duration_seconds' buckets (whole-number bounds up to 600 s among fractional
 * ones), several label sets, a label set reset and observed again.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Histogram, Registry } from "prom-client";
import { CompactHistogram } from "./compact-histogram.ts";

const bucketsSeconds = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 25, 50, 120, 300, 600];
const observations: [string, number][] = [
  ["volume_mount", 0.2],
  ["volume_mount", 3],
  ["verify_controller_attached_volume", 0],
  ["volume_mount", 599.9],
  ["volume_unmount", 601],
  ["verify_controller_attached_volume", 12],
];

async function scrape(make: (registry: Registry) => Histogram): Promise<string> {
  const registry = new Registry();
  const histogram = make(registry);
  for (const [operation, seconds] of observations) histogram.observe({ operation_name: operation }, seconds);
  histogram.reset();
  for (const [operation, seconds] of observations) histogram.observe({ operation_name: operation }, seconds * 2);
  histogram.startTimer({ operation_name: "volume_mount" });
  return registry.metrics();
}

describe("CompactHistogram", () => {
  it("exposes the same buckets, sums and counts as prom-client's Histogram", async () => {
    const config = (registry: Registry) => ({
      name: "storage_operation_duration_seconds",
      help: "Storage operation duration",
      labelNames: ["operation_name"],
      buckets: bucketsSeconds,
      registers: [registry],
    });
    const plain = await scrape((registry) => new Histogram(config(registry)));
    const compact = await scrape((registry) => new CompactHistogram(config(registry)));
    assert.equal(compact, plain);
    assert.match(compact, /storage_operation_duration_seconds_bucket\{le="600",operation_name="volume_mount"\} 2\n/);
    assert.match(compact, /storage_operation_duration_seconds_bucket\{le="\+Inf",operation_name="volume_mount"\} 3\n/);
    assert.match(compact, /storage_operation_duration_seconds_count\{operation_name="volume_unmount"\} 1\n/);
  });
});
