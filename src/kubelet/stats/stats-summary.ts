/**
 * The kubelet's Summary API (`GET /stats/summary` on its server, `GET
 * /api/v1/nodes/<node>/proxy/stats/summary` through the API server), in the shape of Kubernetes'
 * `stats/v1alpha1` Summary: the node (its name, when the kubelet started collecting, the filesystem
 * of its root directory) and each pod bound to it (its reference, start time, running containers
 * and volumes).
 *
 * A pod's `volume` list holds the volumes mounted for it that have a filesystem of their own — those
 * of a PersistentVolume (a claim or a generic ephemeral volume, which carry `pvcRef`) and CSI inline
 * volumes — each measured with statfs(2) of the pod's volume path when the summary is asked for, as
 * the `kubelet_volume_stats_*` metrics are. Kubernetes also lists emptyDir, configMap, secret,
 * projected and downwardAPI volumes, whose bytes it counts with du; kvol leaves them out rather than
 * report the whole filesystem's use as theirs. hostPath, a hostPath PersistentVolume too, has no stats
 * in Kubernetes either. A volume
 * whose statfs fails is left out, as Kubernetes leaves out a volume without metrics.
 */
import type { Pod, Volume } from "kubernetes-types/core/v1.js";
import type { FilesystemSpace } from "../../host/host.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { csiPluginName } from "../../volume/paths.ts";
import type { KubeletMountedVolume } from "../volumemanager/cache/actual-state-of-world.ts";

/** FsStats: a filesystem's space and inodes at `time`. */
export interface FsStats {
  time: string;
  availableBytes: number;
  capacityBytes: number;
  usedBytes: number;
  inodesFree: number;
  inodes: number;
  inodesUsed: number;
}

export interface VolumeStats extends FsStats {
  /** The pod's name for the volume (`spec.volumes[].name`). */
  name: string;
  pvcRef?: { name: string; namespace: string };
}

export interface ContainerStats {
  name: string;
  startTime: string;
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerStats[];
  volume?: VolumeStats[];
}

export interface NodeStats {
  nodeName: string;
  startTime: string;
  fs?: FsStats;
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

/** What the summary is made of: the kubelet's pods and mounted volumes, and statfs on its host. */
export interface StatsSummarySource {
  nodeName: string;
  nowMs: number;
  /** When the kubelet started: the node's stats are collected from then. */
  startTimeMs: number;
  /** The kubelet's root directory: the node's `fs` is the filesystem holding it. */
  rootDir: string;
  pods: readonly Pod[];
  mountedVolumes(podUid: string): readonly KubeletMountedVolume[];
  statfs(path: string): Promise<FilesystemSpace>;
}

function fsStats(space: FilesystemSpace, time: string): FsStats {
  return {
    time,
    availableBytes: space.freeBytes,
    capacityBytes: space.totalBytes,
    usedBytes: space.usedBytes,
    inodesFree: space.inodesFree,
    inodes: space.inodes,
    inodesUsed: space.inodes - space.inodesFree,
  };
}

/** The claim behind a pod's volume: its own claim, or the one a generic ephemeral volume made. */
function claimOf(pod: Pod, volume: Volume | undefined): { name: string; namespace: string } | undefined {
  const namespace = pod.metadata?.namespace ?? "";
  if (volume?.persistentVolumeClaim !== undefined) return { name: volume.persistentVolumeClaim.claimName, namespace };
  if (volume?.ephemeral !== undefined) return { name: `${pod.metadata?.name ?? ""}-${volume.name}`, namespace };
  return undefined;
}

/** Kubernetes' hostPath plugin has no metrics (MetricsNil), a hostPath PersistentVolume's included. */
const hostPathPluginName = "kubernetes.io/host-path";

/** A mounted volume with a filesystem of its own: a PersistentVolume's (not hostPath), or a CSI inline volume's. */
function hasOwnFilesystem(volume: KubeletMountedVolume): boolean {
  if (volume.pluginName === hostPathPluginName) return false;
  return volume.volumeSpec.persistentVolume !== undefined || volume.pluginName === csiPluginName;
}

async function volumeStats(source: StatsSummarySource, pod: Pod, time: string): Promise<VolumeStats[]> {
  const uid = pod.metadata?.uid ?? "";
  const stats: VolumeStats[] = [];
  const mounted = source
    .mountedVolumes(uid)
    .filter((volume) => volume.mounter !== undefined && hasOwnFilesystem(volume));
  for (const volume of [...mounted].sort((a, b) => a.outerVolumeSpecName.localeCompare(b.outerVolumeSpecName))) {
    const path = volume.mounter?.getPath();
    if (path === undefined) continue;
    const space = await source.statfs(path).catch(() => undefined);
    if (space === undefined) continue;
    const podVolume = pod.spec?.volumes?.find((entry) => entry.name === volume.outerVolumeSpecName);
    const claim = claimOf(pod, podVolume);
    stats.push({
      ...fsStats(space, time),
      name: volume.outerVolumeSpecName,
      ...(claim === undefined ? {} : { pvcRef: claim }),
    });
  }
  return stats;
}

function containerStats(pod: Pod): ContainerStats[] {
  const containers: ContainerStats[] = [];
  for (const status of pod.status?.containerStatuses ?? []) {
    const startedAt = status.state?.running?.startedAt;
    if (startedAt !== undefined) containers.push({ name: status.name, startTime: startedAt });
  }
  return containers;
}

/** The Summary now. */
export async function statsSummary(source: StatsSummarySource): Promise<Summary> {
  const time = formatRfc3339(source.nowMs);
  const rootSpace = await source.statfs(source.rootDir).catch(() => undefined);
  const pods: PodStats[] = [];
  const byName = [...source.pods].sort((a, b) =>
    `${a.metadata?.namespace}/${a.metadata?.name}`.localeCompare(`${b.metadata?.namespace}/${b.metadata?.name}`),
  );
  for (const pod of byName) {
    const volume = await volumeStats(source, pod, time);
    pods.push({
      podRef: {
        name: pod.metadata?.name ?? "",
        namespace: pod.metadata?.namespace ?? "",
        uid: pod.metadata?.uid ?? "",
      },
      startTime: pod.status?.startTime ?? pod.metadata?.creationTimestamp ?? time,
      containers: containerStats(pod),
      ...(volume.length === 0 ? {} : { volume }),
    });
  }
  return {
    node: {
      nodeName: source.nodeName,
      startTime: formatRfc3339(source.startTimeMs),
      ...(rootSpace === undefined ? {} : { fs: fsStats(rootSpace, time) }),
    },
    pods,
  };
}
