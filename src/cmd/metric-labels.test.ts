/**
 * Every metric kvol exports, by name, with its label names and sample label values written out as
 * Kubernetes has them (component-base's workqueue provider, pkg/volume/util/metrics.go,
 * pkg/kubelet/metrics/collectors/volume_stats.go, the attach/detach controller's and the volume
 * manager's collectors, the API server's request metrics), so a renamed metric or label is caught.
 */
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { describe, it } from "node:test";
import { requestCounter, requestLabels } from "../apiserver/request-metrics.ts";
import { forcedDetachesCounter, totalVolumesGauge } from "../controllers/attachdetach/metrics.ts";
import type { FilesystemSpace } from "../host/host.ts";
import type { KubeletMountedVolume } from "../kubelet/volumemanager/cache/actual-state-of-world.ts";
import { volumeManagerTotalVolumesGauge } from "../kubelet/volumemanager/metrics.ts";
import { volumeStatsGauges } from "../kubelet/volumemanager/volume-stats-metrics.ts";
import { Metrics } from "../runtime/metrics.ts";
import { ItemExponentialFailureRateLimiter } from "../runtime/rate-limiter.ts";
import { VirtualClock } from "../runtime/virtual-clock.ts";
import { WorkQueue } from "../runtime/workqueue.ts";
import { storageOperationHistogram, timedOperation } from "../volume/operationexecutor/operation-metrics.ts";

/** `name{a="1",b="2"} value` → the family's samples' label objects (histogram `le` left out). */
function samples(text: string, name: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-z_]+)\{([^}]*)\} /.exec(line);
    if (match?.[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)) {
      if (pair[1] !== "le") labels[pair[1] ?? ""] = pair[2] ?? "";
    }
    found.push(labels);
  }
  return found;
}

const sorted = (names: Iterable<string>) => [...names].sort();

function labelNames(text: string, name: string): string[] {
  const all = samples(text, name);
  assert.ok(all.length > 0, `no samples of ${name}`);
  return sorted(new Set(all.flatMap((labels) => Object.keys(labels))));
}

const csiVolume = "kubernetes.io/csi/disk.csi.kvol.io^vol-1";

describe("the metrics kvol exports, named and labelled as Kubernetes names and labels them", () => {
  it("the attach/detach controller's and the kubelet's volume metrics", async () => {
    const metrics = new Metrics();
    const clock = new VirtualClock();
    const states = { desired: () => [{ volumeName: csiVolume }], actual: () => [{ volumeName: csiVolume }] };
    totalVolumesGauge(metrics, states);
    volumeManagerTotalVolumesGauge(metrics, states);
    forcedDetachesCounter(metrics).inc({ reason: "timeout" });
    const histogram = storageOperationHistogram(metrics);
    await timedOperation(histogram, clock, csiVolume, "volume_attach", async () => undefined)();
    await assert.rejects(
      timedOperation(histogram, clock, "kubernetes.io/nfs/vol", "volume_mount", async () => {
        throw new Error("mount failed: exit status 32");
      })(),
    );
    const space: FilesystemSpace = { totalBytes: 100, freeBytes: 40, usedBytes: 50, inodes: 10, inodesFree: 7 };
    const mounted = {
      volumeSpec: { persistentVolume: { spec: { claimRef: { namespace: "shop", name: "data" } } } },
      mounter: { getPath: () => "/var/lib/kubelet/pods/uid/volumes/x/data" },
    } as unknown as KubeletMountedVolume;
    volumeStatsGauges(
      metrics,
      () => [mounted],
      async () => space,
    );
    const text = await metrics.exposition();

    for (const name of ["attachdetach_controller_total_volumes", "volume_manager_total_volumes"]) {
      assert.deepEqual(labelNames(text, name), ["plugin_name", "state"]);
      assert.deepEqual(sorted(samples(text, name).map((labels) => `${labels.plugin_name} ${labels.state}`)), [
        "kubernetes.io/csi:disk.csi.kvol.io actual_state_of_world",
        "kubernetes.io/csi:disk.csi.kvol.io desired_state_of_world",
      ]);
    }
    assert.deepEqual(labelNames(text, "attach_detach_controller_attachdetach_controller_forced_detaches"), ["reason"]);
    for (const suffix of ["bucket", "sum", "count"]) {
      assert.deepEqual(labelNames(text, `storage_operation_duration_seconds_${suffix}`), [
        "migrated",
        "operation_name",
        "status",
        "volume_plugin",
      ]);
    }
    assert.deepEqual(samples(text, "storage_operation_duration_seconds_count"), [
      {
        volume_plugin: "kubernetes.io/csi:disk.csi.kvol.io",
        operation_name: "volume_attach",
        status: "success",
        migrated: "false",
      },
      { volume_plugin: "kubernetes.io/nfs", operation_name: "volume_mount", status: "fail-unknown", migrated: "false" },
    ]);
    const stats: [string, string][] = [
      ["kubelet_volume_stats_capacity_bytes", "100"],
      ["kubelet_volume_stats_available_bytes", "40"],
      ["kubelet_volume_stats_used_bytes", "50"],
      ["kubelet_volume_stats_inodes", "10"],
      ["kubelet_volume_stats_inodes_free", "7"],
      ["kubelet_volume_stats_inodes_used", "3"],
    ];
    for (const [name, value] of stats) {
      assert.deepEqual(samples(text, name), [{ namespace: "shop", persistentvolumeclaim: "data" }]);
      assert.ok(text.includes(`${name}{namespace="shop",persistentvolumeclaim="data"} ${value}\n`), name);
    }
  });

  it("the API server's apiserver_request_total", () => {
    const request = (method: string, url: string) => ({ method, url, headers: {} }) as IncomingMessage;
    const metrics = new Metrics();
    requestCounter(metrics);
    assert.deepEqual(requestLabels(request("GET", "/api/v1/namespaces/shop/pods?watch=true"), 200), {
      verb: "WATCH",
      dry_run: "",
      group: "",
      version: "v1",
      resource: "pods",
      subresource: "",
      scope: "namespace",
      component: "apiserver",
      code: "200",
    });
    assert.deepEqual(requestLabels(request("PUT", "/apis/storage.k8s.io/v1/volumeattachments/csi-1/status"), 409), {
      verb: "PUT",
      dry_run: "",
      group: "storage.k8s.io",
      version: "v1",
      resource: "volumeattachments",
      subresource: "status",
      scope: "resource",
      component: "apiserver",
      code: "409",
    });
  });

  it("the work queues' workqueue_* metrics, by queue name, with the work in progress read at each scrape", async () => {
    const metrics = new Metrics();
    const clock = new VirtualClock();
    const queue = (name: string) =>
      new WorkQueue<string>({
        name,
        clock,
        rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1_000),
        metrics,
      });
    const claims = queue("claimsqueue");
    const volumes = queue("volumesqueue");
    claims.add("shop/a");
    claims.add("shop/b");
    volumes.add("pv-1");
    await claims.get();
    await clock.advanceBy(2_000);
    await claims.get();
    await clock.advanceBy(1_000);
    const text = await metrics.exposition();
    for (const name of [
      "workqueue_depth",
      "workqueue_adds_total",
      "workqueue_queue_duration_seconds_count",
      "workqueue_unfinished_work_seconds",
      "workqueue_longest_running_processor_seconds",
    ]) {
      assert.deepEqual(labelNames(text, name), ["name"]);
    }
    assert.ok(text.includes('workqueue_unfinished_work_seconds{name="claimsqueue"} 4\n'), text);
    assert.ok(text.includes('workqueue_longest_running_processor_seconds{name="claimsqueue"} 3\n'), text);
    assert.ok(text.includes('workqueue_unfinished_work_seconds{name="volumesqueue"} 0\n'), text);
    assert.ok(text.includes('workqueue_queue_duration_seconds_bucket{le="0.000001",name="claimsqueue"} 1\n'), text);
    assert.ok(text.includes('workqueue_queue_duration_seconds_bucket{le="1000",name="claimsqueue"} 2\n'), text);
  });
});
