/**
 * kubelet_volume_stats_capacity_bytes, _available_bytes, _used_bytes, _inodes, _inodes_free and
 * _inodes_used (Kubernetes' pkg/kubelet/metrics/collectors/volume_stats.go): the space and inodes
 * of each mounted volume that comes from a claim, by the claim's namespace and name, read with
 * statfs(2) of the pod's volume path at each scrape (used bytes count the blocks not free, as
 * Kubernetes' fs.Info does, so the root-reserved ones are in neither used nor available). A volume whose statfs fails is left out of that scrape (as upstream leaves out a
 * volume without stats).
 */
import type { Gauge } from "prom-client";
import type { FilesystemSpace } from "../../host/host.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import type { KubeletMountedVolume } from "./cache/actual-state-of-world.ts";

interface ClaimVolume {
  namespace: string;
  persistentvolumeclaim: string;
  path: string;
}

function claimVolumes(mounted: readonly KubeletMountedVolume[]): ClaimVolume[] {
  const seen = new Set<string>();
  const volumes: ClaimVolume[] = [];
  for (const volume of mounted) {
    const claim = volume.volumeSpec.persistentVolume?.spec?.claimRef;
    if (claim?.name === undefined || claim.namespace === undefined || volume.mounter === undefined) continue;
    const key = `${claim.namespace}/${claim.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    volumes.push({ namespace: claim.namespace, persistentvolumeclaim: claim.name, path: volume.mounter.getPath() });
  }
  return volumes;
}

const labelNames = ["namespace", "persistentvolumeclaim"] as const;

const statsGauges = [
  {
    name: "kubelet_volume_stats_capacity_bytes",
    help: "Capacity in bytes of the volume",
    value: (space: FilesystemSpace) => space.totalBytes,
  },
  {
    name: "kubelet_volume_stats_available_bytes",
    help: "Number of available bytes in the volume",
    value: (space: FilesystemSpace) => space.freeBytes,
  },
  {
    name: "kubelet_volume_stats_used_bytes",
    help: "Number of used bytes in the volume",
    value: (space: FilesystemSpace) => space.usedBytes,
  },
  {
    name: "kubelet_volume_stats_inodes",
    help: "Maximum number of inodes in the volume",
    value: (space: FilesystemSpace) => space.inodes,
  },
  {
    name: "kubelet_volume_stats_inodes_free",
    help: "Number of free inodes in the volume",
    value: (space: FilesystemSpace) => space.inodesFree,
  },
  {
    name: "kubelet_volume_stats_inodes_used",
    help: "Number of used inodes in the volume",
    value: (space: FilesystemSpace) => space.inodes - space.inodesFree,
  },
] as const;

/** Each gauge reads statfs itself at its scrape: prom-client collects the gauges concurrently. */
export function volumeStatsGauges(
  metrics: Metrics,
  mounted: () => readonly KubeletMountedVolume[],
  statfs: (path: string) => Promise<FilesystemSpace>,
): void {
  for (const spec of statsGauges) {
    metrics.gauge({
      name: spec.name,
      help: spec.help,
      labelNames,
      collect: async (gauge: Gauge) => {
        gauge.reset();
        for (const volume of claimVolumes(mounted())) {
          const space = await statfs(volume.path).catch(() => undefined);
          if (space === undefined) continue;
          gauge.set(
            { namespace: volume.namespace, persistentvolumeclaim: volume.persistentvolumeclaim },
            spec.value(space),
          );
        }
      },
    });
  }
}
